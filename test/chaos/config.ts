// The gateway configuration of a chaos run's instances: the reassignment settings scaled down
// so a run lasts a second or two, and the Kafka client's, both checked against what the gateway's
// own loader accepts at production scale, so that a run never tests a configuration the gateway
// would refuse at start (a lease shorter than a request timeout plus its margin, say).
import { loadReassignmentConfig, type ReassignmentConfig } from '../../src/reconcile/index.js';
import type { ChaosSchedule, ChaosTuning } from './schedule.js';

/** A run's timings scaled up by 30 s / its lease are a production configuration (30 s: the default lease on the old rule). */
const PRODUCTION_SCALE_LEASE_MS = 30_000;

/** Kafka client settings of every instance (and the checker): short timeouts, one retry (faults are the point). */
export function kafkaEnv(requestTimeoutMs: number): Record<string, string> {
  return {
    KAFKA_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
    KAFKA_CONNECT_TIMEOUT_MS: String(Math.min(requestTimeoutMs, 500)),
    KAFKA_PING_TIMEOUT_MS: String(Math.min(requestTimeoutMs, 500)),
    KAFKA_RETRIES: '1',
    KAFKA_RETRY_BACKOFF_MS: '20',
    KAFKA_RETRY_BACKOFF_MAX_MS: '100',
  };
}

/** The loader's verdict on a run's timings scaled up to production: null = accepted, else its message. */
function refusal(t: ChaosTuning, requestTimeoutMs: number): string | null {
  const k = PRODUCTION_SCALE_LEASE_MS / t.leaseMs;
  const scaled = (ms: number) => String(Math.max(10, Math.round(ms * k)));
  try {
    loadReassignmentConfig({
      KAFKA_REQUEST_TIMEOUT_MS: scaled(requestTimeoutMs),
      PACING_LEASE_MS: scaled(t.leaseMs),
      REASSIGNMENT_START_TIMEOUT_MS: scaled(t.startTimeoutMs),
      RECONCILE_INTERVAL_MS: scaled(t.reconcileIntervalMs),
      PACING_POLL_MS: scaled(t.pacingPollMs),
    });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message.replace(/\s+/g, ' ') : String(err);
  }
}

/**
 * The schedule's request timeout if the gateway's own loader accepts the run's timings with it at
 * production scale, else the shortest of the tuning's (a loader that puts a floor on the lease
 * over the request timeout refuses the longer ones: running them anyway would test a
 * configuration the gateway does not allow). Throws when even that is refused: the tuning needs
 * updating to what the gateway accepts.
 */
export function effectiveRequestTimeout(s: ChaosSchedule): { ms: number; refused: string | null } {
  const t = s.tuning;
  const refused = refusal(t, s.requestTimeoutMs);
  if (refused === null) return { ms: s.requestTimeoutMs, refused: null };
  const ms = Math.round(t.leaseMs * Math.min(...t.requestTimeouts.map(([, r]) => r)));
  const again = refusal(t, ms);
  if (again !== null) throw new Error(`the chaos tuning is not a configuration the gateway accepts (scaled to a 30 s lease): ${again}`);
  return { ms, refused: `request timeout ${s.requestTimeoutMs} ms refused by the gateway's loader (${refused}): ${ms} ms instead` };
}

/** One instance's reassignment settings: the loader's, with the run's timings. */
export function instanceConfig(t: ChaosTuning, env: Record<string, string>, id: string): ReassignmentConfig {
  const config = loadReassignmentConfig({
    ...env,
    GATEWAY_INSTANCE_ID: id,
    RECONCILE_INTERVAL_MS: String(t.reconcileIntervalMs),
    PACING_POLL_MS: String(t.pacingPollMs),
    REASSIGNMENT_START_TIMEOUT_MS: String(t.startTimeoutMs),
    STALL_AFTER_SECONDS: '5',
    // Any floor the loader puts on the lease (a margin over the request timeout) is met here; the
    // run's lease, shorter than the environment allows (1 s at least), is set below, checked at
    // production scale by effectiveRequestTimeout.
    PACING_LEASE_MS: String(15 * 60_000),
  });
  config.pacingLeaseMs = t.leaseMs;
  return config;
}
