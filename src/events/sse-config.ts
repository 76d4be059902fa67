// The event streams' settings (GET /reassignments/events, /reassignments/{id}/events), from the
// environment: read by the composition root (src/main.ts); createApp uses the defaults without it.

export interface StreamConfig {
  /** SSE_MAX_STREAMS: open streams per instance at most; beyond, 503 with Retry-After. */
  maxStreams: number;
  /** SSE_PROGRESS_INTERVAL_MS: at most one progress event per reassignment per stream this often. */
  progressIntervalMs: number;
  /** SSE_HEARTBEAT_MS: a comment line this often, so that proxies keep an idle stream open. */
  heartbeatMs: number;
}

export const DEFAULT_STREAM_CONFIG: StreamConfig = { maxStreams: 1000, progressIntervalMs: 1000, heartbeatMs: 15_000 };

function int(env: Record<string, string | undefined>, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got "${raw}"`);
  return n;
}

export function loadStreamConfig(env: Record<string, string | undefined>): StreamConfig {
  return {
    maxStreams: int(env, 'SSE_MAX_STREAMS', DEFAULT_STREAM_CONFIG.maxStreams, 0),
    progressIntervalMs: int(env, 'SSE_PROGRESS_INTERVAL_MS', DEFAULT_STREAM_CONFIG.progressIntervalMs, 100),
    heartbeatMs: int(env, 'SSE_HEARTBEAT_MS', DEFAULT_STREAM_CONFIG.heartbeatMs, 100),
  };
}
