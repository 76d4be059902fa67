// Settings of the reassignment/throttle machinery, from the environment. Pure: validates
// everything and throws one Error listing every problem, like src/config.ts.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { envInt, type Env } from '../env.js';

export const CRASH_POINTS = [
  'reassignment-chunks',
  'ledger-write',
  'throttle-write',
  'reassignment-start',
  'pacing-throttles',
  'pacing-start',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

export interface ReassignmentConfig {
  /** KAFKA_GATEWAY_STATE_TOPIC: the compacted topic holding reassignment records and the throttle ledger. */
  stateTopic: string;
  /** RECONCILE_INTERVAL_MS: how often every instance compares the ledger with the cluster. */
  reconcileIntervalMs: number;
  /** STALL_AFTER_SECONDS: a running reassignment whose bytes remaining have not fallen for this long is `stalled`. */
  stallAfterSeconds: number;
  /**
   * REASSIGNMENT_START_TIMEOUT_MS: a reassignment record still `pending` this long after it was
   * written is resolved by the reconciler (its writer died or hung); the writer never starts it later.
   */
  startTimeoutMs: number;
  /** REASSIGNMENT_RETENTION_SECONDS: finished reassignments stay readable this long, then are tombstoned. */
  retentionSeconds: number;
  /** GATEWAY_INSTANCE_ID: names this process in records it writes (default hostname + random suffix). */
  instanceId: string;
  /**
   * GATEWAY_CRASH_AFTER — TEST HOOK ONLY: SIGKILL this process right after the named step of
   * POST /reassignments, to prove that a crash at any step leaves nothing behind.
   */
  crashAfter: CrashPoint | null;
  /**
   * PACING_POLL_MS: while a paced reassignment has moves in flight, how often each instance asks
   * Kafka (ListPartitionReassignments only) whether one ended, to start the next wave at once.
   */
  pacingPollMs: number;
  /**
   * PACING_LEASE_MS: lease of the claims under which one instance writes a reassignment's record
   * (a paced wave, a pass, PATCH, DELETE) or syncs throttles; an instance that dies holding one
   * delays that work up to this long after another instance first sees the claim (leases are
   * measured on each instance's monotonic clock: src/state/claims.ts). At least
   * KAFKA_REQUEST_TIMEOUT_MS + LEASE_MARGIN_MS: a Kafka request started inside a lease must be
   * able to end inside it.
   */
  pacingLeaseMs: number;
  /** KAFKA_REQUEST_TIMEOUT_MS (as src/kafka/config.ts reads it): what a lease must outlast. */
  kafkaRequestTimeoutMs: number;
  /**
   * REASSIGNMENT_DEFAULT_PER_BROKER: the `concurrency.perBroker` of a POST /reassignments without
   * `concurrency`. Unset (the default) = no pacing: everything is sent at once, as Kafka's tool does.
   */
  defaultConcurrency: { perBroker: number; cluster: null } | null;
}

/** How much longer than a Kafka request a lease must be (the claim's own write and reads, a margin). */
export const LEASE_MARGIN_MS = 5000;

export function loadReassignmentConfig(env: Env = process.env): ReassignmentConfig {
  const problems: string[] = [];
  const stateTopic = env.KAFKA_GATEWAY_STATE_TOPIC?.trim() || '_kafka_admin_gateway_state';
  if (!/^(?!\.{1,2}$)[a-zA-Z0-9._-]{1,249}$/.test(stateTopic))
    problems.push(`KAFKA_GATEWAY_STATE_TOPIC is not a legal topic name: "${stateTopic}"`);
  const reconcileIntervalMs = envInt(env, 'RECONCILE_INTERVAL_MS', 2000, 10, 3_600_000, problems);
  const stallAfterSeconds = envInt(env, 'STALL_AFTER_SECONDS', 120, 1, 86_400, problems);
  const startTimeoutMs = envInt(env, 'REASSIGNMENT_START_TIMEOUT_MS', 30_000, 100, 3_600_000, problems);
  const retentionSeconds = envInt(env, 'REASSIGNMENT_RETENTION_SECONDS', 86_400, 0, 365 * 86_400, problems);
  const pacingPollMs = envInt(env, 'PACING_POLL_MS', 50, 10, 60_000, problems);
  const kafkaRequestTimeoutMs = envInt(env, 'KAFKA_REQUEST_TIMEOUT_MS', 30_000, 1, 2 ** 31 - 1, []); // its errors: src/kafka/config.ts
  const leaseFloor = kafkaRequestTimeoutMs + LEASE_MARGIN_MS;
  // Default: the shortest safe lease (a holder that dies delays its work the least).
  const pacingLeaseMs = envInt(env, 'PACING_LEASE_MS', Math.min(leaseFloor, 15 * 60_000), 1000, 15 * 60_000, problems);
  if (pacingLeaseMs < leaseFloor) {
    problems.push(
      `PACING_LEASE_MS (${pacingLeaseMs}) must be at least KAFKA_REQUEST_TIMEOUT_MS (${kafkaRequestTimeoutMs}) + ${LEASE_MARGIN_MS} ms: a Kafka request started by the holder of a lease must end within it, or another instance could act at the same time (raise PACING_LEASE_MS to ${leaseFloor} or more, or lower KAFKA_REQUEST_TIMEOUT_MS)`,
    );
  }
  const defaultPerBroker = env.REASSIGNMENT_DEFAULT_PER_BROKER?.trim()
    ? envInt(env, 'REASSIGNMENT_DEFAULT_PER_BROKER', 5, 1, 1_000_000, problems)
    : null;
  const instanceId = env.GATEWAY_INSTANCE_ID?.trim() || `${hostname()}-${randomBytes(3).toString('hex')}`;
  const rawCrash = env.GATEWAY_CRASH_AFTER?.trim();
  let crashAfter: CrashPoint | null = null;
  if (rawCrash) {
    if ((CRASH_POINTS as readonly string[]).includes(rawCrash)) crashAfter = rawCrash as CrashPoint;
    else problems.push(`GATEWAY_CRASH_AFTER must be one of ${CRASH_POINTS.join(', ')}, got "${rawCrash}"`);
  }
  if (problems.length) throw new Error(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return {
    stateTopic,
    reconcileIntervalMs,
    stallAfterSeconds,
    startTimeoutMs,
    retentionSeconds,
    instanceId,
    crashAfter,
    pacingPollMs,
    pacingLeaseMs,
    kafkaRequestTimeoutMs,
    defaultConcurrency: defaultPerBroker === null ? null : { perBroker: defaultPerBroker, cluster: null },
  };
}

/** TEST HOOK (GATEWAY_CRASH_AFTER): die here, as `kill -9` would, with no cleanup of any kind. */
export function crashPoint(config: Pick<ReassignmentConfig, 'crashAfter'>, point: CrashPoint): void {
  if (config.crashAfter === point) process.kill(process.pid, 'SIGKILL');
}
