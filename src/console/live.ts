// Live data for the reassignment pages: the gateway's event streams (Server-Sent Events,
// GET /reassignments/events and /reassignments/{id}/events) instead of polling. The stream is
// read with fetch (src/client/event-stream.ts), not EventSource, which cannot send the bearer
// token. When streams do not work (an older gateway without them, a proxy that buffers, the
// instance's stream limit, a browser without fetch streams), the hooks fall back to polling as
// the console did before, so a page always shows current data.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type GatewayClient, type Reassignment, type ReassignmentList, type ReassignmentSummary } from '../client/api.js';
import { followEventStream, type FollowHandle, type StreamError } from '../client/event-stream.js';
import type { Poll } from './ui.js';

/** How a page gets its data now: `live` over a stream, `polling` after the stream failed. */
export type LiveMode = 'connecting' | 'live' | 'polling';

/** The fields a list row needs; a stream's summary and GET /reassignments' both have them. */
export type ReassignmentRow = Pick<
  Reassignment,
  'id' | 'state' | 'createdAt' | 'startedAt' | 'endedAt' | 'throttle' | 'counts' | 'progress' | 'requestedBy' | 'concurrency' | 'order'
> & {
  reason?: string;
  rollbackOf?: string;
  origin?: Reassignment['origin'];
};

/** Failed connections in a row before a page falls back to polling (a refused or broken stream). */
const FAILURES_BEFORE_POLLING = 2;

const streamsSupported = (): boolean =>
  typeof ReadableStream !== 'undefined' && typeof TextDecoderStream !== 'undefined' && typeof AbortController !== 'undefined';

interface StreamData {
  change: { eventId: string; type: string; state: string; previousState: string | null; at: string } | null;
  reassignment?: Reassignment | null;
  reassignments?: Reassignment[];
}

/**
 * Follows `path` (an event stream) and calls `onData` per event; after FAILURES_BEFORE_POLLING
 * failures in a row (or a final refusal), calls `onFallback` once and stops.
 */
function follow(
  path: string,
  token: string | null,
  onData: (event: string, data: StreamData) => void,
  onMode: (m: LiveMode) => void,
  onFallback: (err: StreamError) => void,
): FollowHandle | null {
  if (!streamsSupported()) return null;
  let failures = 0;
  const handle = followEventStream({
    url: `${location.origin}${path}`,
    token,
    onOpen: () => onMode('live'),
    onEvent: (e) => {
      failures = 0;
      try {
        onData(e.event, JSON.parse(e.data) as StreamData);
      } catch {
        // Not JSON: not one of ours; ignore it.
      }
    },
    onError: (err) => {
      failures++;
      if (err.fatal || failures >= FAILURES_BEFORE_POLLING) {
        handle.close();
        onFallback(err);
      }
    },
  });
  return handle;
}

/** Runs `load` every `ms` while the tab is visible, until the returned stop(). */
function pollEvery(load: () => Promise<void>, ms: number): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = async () => {
    if (stopped) return;
    if (document.visibilityState !== 'hidden') await load().catch(() => undefined);
    if (!stopped) timer = setTimeout(run, ms);
  };
  void run();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/**
 * One reassignment's summary, live: the stream's snapshot, then each change and progress
 * event. `version` grows with every update (pages reload their partition rows on it).
 */
export function useLiveReassignment(
  api: GatewayClient,
  token: string | null,
  id: string,
  pollMs = 1000,
): Poll<Reassignment> & { mode: LiveMode; version: number } {
  const [data, setData] = useState<Reassignment | null>(null);
  const [error, setError] = useState<Error | null>(null);
  const [mode, setMode] = useState<LiveMode>('connecting');
  const [version, setVersion] = useState(0);
  const load = useCallback(async () => {
    try {
      const r = await api.reassignment(id);
      setData(r);
      setError(null);
      setVersion((v) => v + 1);
    } catch (err) {
      setError(err as Error);
      throw err;
    }
  }, [api, id]);
  useEffect(() => {
    setData(null);
    setError(null);
    setMode('connecting');
    let stopPolling: (() => void) | undefined;
    const fallback = (err?: StreamError) => {
      // 404: the reassignment is not known; polling would only repeat it.
      if (err?.status === 404) {
        setError(new ApiError(404, null, null, err.message));
        return;
      }
      setMode('polling');
      stopPolling = pollEvery(load, pollMs);
    };
    const handle = follow(
      `/reassignments/${encodeURIComponent(id)}/events`,
      token,
      (_event, d) => {
        if (d.reassignment) {
          setData(d.reassignment);
          setError(null);
          setVersion((v) => v + 1);
        }
      },
      setMode,
      fallback,
    );
    if (!handle) fallback();
    return () => {
      handle?.close();
      stopPolling?.();
    };
  }, [api, token, id]);
  return { data, error, refresh: () => void load().catch(() => undefined), mode, version };
}

/**
 * The reassignment list, live: GET /reassignments once (its external moves too), then the
 * all-stream's snapshot and events update the rows; a change (not progress) reads the list
 * again, a second later at most, for what the stream does not carry (moves started elsewhere).
 */
export function useLiveReassignmentList(
  api: GatewayClient,
  token: string | null,
  pollMs = 2000,
): Poll<{ rows: ReassignmentRow[]; list: ReassignmentList }> & { mode: LiveMode } {
  const [list, setList] = useState<ReassignmentList | null>(null);
  const [streamed, setStreamed] = useState<Map<string, Reassignment>>(new Map());
  const [error, setError] = useState<Error | null>(null);
  const [mode, setMode] = useState<LiveMode>('connecting');
  const reload = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const load = useCallback(async () => {
    try {
      setList(await api.reassignments());
      setError(null);
    } catch (err) {
      setError(err as Error);
    }
  }, [api]);
  useEffect(() => {
    setList(null);
    setStreamed(new Map());
    setMode('connecting');
    void load();
    let stopPolling: (() => void) | undefined;
    const handle = follow(
      '/reassignments/events',
      token,
      (event, d) => {
        if (d.reassignments) setStreamed(new Map(d.reassignments.map((r) => [r.id, r])));
        else if (d.reassignment) {
          const r = d.reassignment;
          setStreamed((m) => new Map(m).set(r.id, r));
        }
        if (event !== 'progress' && event !== 'snapshot' && reload.current === undefined) {
          reload.current = setTimeout(() => {
            reload.current = undefined;
            void load();
          }, 1000);
        }
      },
      setMode,
      () => {
        setMode('polling');
        setStreamed(new Map());
        stopPolling = pollEvery(load, pollMs);
      },
    );
    if (!handle) {
      setMode('polling');
      stopPolling = pollEvery(load, pollMs);
    }
    return () => {
      handle?.close();
      stopPolling?.();
      clearTimeout(reload.current);
      reload.current = undefined;
    };
  }, [api, token]);
  const data = list === null ? null : { list, rows: mergeRows(list.reassignments, streamed) };
  return { data, error: data ? null : error, refresh: () => void load(), mode };
}

const isLiveState = (s: string) => s !== 'completed' && s !== 'cancelled' && s !== 'failed';

/** The list's rows, each replaced by the stream's summary when it has one (newer); live ones first, newest first. */
export function mergeRows(listed: readonly ReassignmentSummary[], streamed: ReadonlyMap<string, Reassignment>): ReassignmentRow[] {
  const byId = new Map<string, ReassignmentRow>();
  for (const r of listed) byId.set(r.id, r);
  for (const [id, r] of streamed) byId.set(id, r);
  return [...byId.values()].sort(
    (a, b) => Number(isLiveState(b.state)) - Number(isLiveState(a.state)) || b.createdAt.localeCompare(a.createdAt),
  );
}

/** Finished: no rate and no ETA any more, only how long it took. */
export const isFinished = (state: string): boolean => state === 'completed' || state === 'cancelled' || state === 'failed';

/** How long a reassignment ran (started, or created, to ended; null while it runs). */
export function tookSeconds(r: Pick<ReassignmentRow, 'createdAt' | 'startedAt' | 'endedAt'>): number | null {
  if (!r.endedAt) return null;
  return Math.max(0, (Date.parse(r.endedAt) - Date.parse(r.startedAt ?? r.createdAt)) / 1000);
}
