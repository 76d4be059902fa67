// A chaos run's schedule, drawn from its seed before the run starts (test/chaos/prng.ts): the
// cluster and the gateway instances (each instance slot with its clock skew), the topics and the
// foreign throttles ("someone else's", set before the run), and timed events: client actions
// through HTTP (POST paced / unpaced, PATCH pause / resume / throttle / concurrency, DELETE),
// instance kills (with or without a restart), pauses of an instance's Kafka requests, brokers
// stopped and started again (the state topic's leader among them), and faults on any Kafka call
// (delay, error code, connection dropped before / after handling).
//
// The same seed gives the same schedule, byte for byte (formatSchedule prints it), so a failing
// seed is replayed with CHAOS_SEED=<seed>. What it cannot replay exactly is the interleaving of
// the real sockets and timers underneath (every instance talks to the simulator over loopback
// TCP): a replay runs the same schedule, usually into the same failure, not always.
//
// Actions are drawn near faults on purpose (a DELETE inside an AlterPartitionReassignments
// delay, a PATCH while an instance is paused): uniform times would rarely put the two together.
import { Prng } from './prng.js';

/** Timing knobs of a run (the gateway's intervals scaled down so that a run takes a second or two). */
export interface ChaosTuning {
  brokers: number;
  /** Instance slots: min and max. */
  instances: readonly [number, number];
  /** Events are drawn in [0, horizonMs). */
  horizonMs: number;
  /** PACING_LEASE_MS of every instance (the claims' lease): several Kafka request timeouts. */
  leaseMs: number;
  /**
   * KAFKA_REQUEST_TIMEOUT_MS of a run's instances, as a multiple of the lease, by weight: shorter
   * than the lease (a request that starts inside a lease ends inside it), and longer (a request
   * can outlive the lease it started under, as the gateway's defaults allowed: both 30 s). A run
   * whose pair the gateway's own loader refuses at production scale runs with the first
   * (config.ts effectiveRequestTimeout).
   */
  requestTimeouts: readonly (readonly [number, number])[];
  reconcileIntervalMs: number;
  pacingPollMs: number;
  startTimeoutMs: number;
  /** Simulated replication bandwidth per broker (bytes/s) and bytes per partition (min, max). */
  replicationBytesPerSecond: number;
  partitionBytes: readonly [number, number];
  /** Largest clock skew of an instance (± ms). */
  maxSkewMs: number;
}

export const DEFAULT_TUNING: ChaosTuning = {
  brokers: 4,
  instances: [2, 3],
  horizonMs: 1000,
  leaseMs: 700,
  requestTimeouts: [
    [3, 1 / 3],
    [2, 2],
  ],
  reconcileIntervalMs: 60,
  pacingPollMs: 15,
  startTimeoutMs: 400,
  replicationBytesPerSecond: 4_000_000,
  partitionBytes: [100_000, 400_000],
  maxSkewMs: 30_000,
};

export interface TopicSpec {
  name: string;
  /** Replicas of each partition. */
  assignments: number[][];
  /** Bytes each partition holds (what a move copies). */
  bytes: number[];
}

export interface Concurrency {
  perBroker: number | null;
  cluster: number | null;
}

export type PatchBody = { paused: boolean } | { throttle: number | null } | { concurrency: Concurrency };

/** Kafka APIs the gateway calls, by key (the faults' targets). */
export const GATEWAY_APIS: Readonly<Record<number, string>> = {
  0: 'Produce',
  1: 'Fetch',
  2: 'ListOffsets',
  3: 'Metadata',
  19: 'CreateTopics',
  32: 'DescribeConfigs',
  35: 'DescribeLogDirs',
  44: 'IncrementalAlterConfigs',
  45: 'AlterPartitionReassignments',
  46: 'ListPartitionReassignments',
  60: 'DescribeCluster',
};

/** Error codes a fault answers: retriable ones mostly, and a few the gateway must give up on. */
const ERROR_CODES: readonly (readonly [number, number])[] = [
  [4, 7], // REQUEST_TIMED_OUT
  [3, 6], // NOT_LEADER_OR_FOLLOWER
  [2, 5], // LEADER_NOT_AVAILABLE
  [2, 41], // NOT_CONTROLLER
  [2, 15], // COORDINATOR_NOT_AVAILABLE (not retriable for most APIs)
  [1, 29], // TOPIC_AUTHORIZATION_FAILED
  [1, 87], // INVALID_RECORD
];

export type FaultKind = { delayMs: number } | { error: number } | { drop: 'before' | 'after' };

export interface PostSpec {
  kind: 'post';
  /** Index of the POST in the run (its topic is t<post>: no two POSTs share a partition). */
  post: number;
  /** Instance slot asked (the next live one if it is dead). */
  via: number;
  partitions: { topic: string; partition: number; replicas: number[] }[];
  throttle: number | null;
  concurrency: Concurrency | null;
  order: 'size-asc' | 'size-desc' | 'as-given';
}

export type ChaosEvent = { at: number } & (
  | PostSpec
  | { kind: 'patch'; post: number; via: number; body: PatchBody }
  | { kind: 'delete'; post: number; via: number }
  | { kind: 'kill'; slot: number; restartAfterMs: number | null }
  | { kind: 'pause'; slot: number; ms: number }
  | { kind: 'broker'; broker: number; ms: number }
  | { kind: 'fault'; apiKey: number; fault: FaultKind; times: number; slot: number | null; brokerId: number | null; forMs: number }
);

export interface ChaosSchedule {
  seed: number;
  tuning: ChaosTuning;
  /** KAFKA_REQUEST_TIMEOUT_MS drawn for this run (see ChaosTuning.requestTimeouts). */
  requestTimeoutMs: number;
  /** Clock skew (ms) of each instance slot (a restarted instance keeps its slot's clock). */
  skews: number[];
  topics: TopicSpec[];
  /** Throttles someone else set before the run: they must be exactly as they were after it. */
  foreign: { broker: number; rate: string; topic: string; replicas: string };
  events: ChaosEvent[];
}

const FOREIGN_TOPIC = 'foreign';

function skewOf(rng: Prng, max: number): number {
  return rng.weighted<() => number>([
    [5, () => 0],
    [2, () => rng.pick([-1, 1]) * Math.min(20_000, max)],
    [3, () => rng.int(-max, max)],
  ])();
}

function drawFault(rng: Prng, t: ChaosTuning, slots: number): Extract<ChaosEvent, { kind: 'fault' }> {
  // The calls that start, stop and throttle moves most, the reads around them next.
  const keys = [
    [8, '45'],
    [3, '46'],
    [3, '0'],
    [2, '1'],
    [2, '44'],
    [2, '32'],
    [2, '3'],
    [1, '2'],
    [1, '35'],
    [1, '60'],
  ] as const;
  const apiKey = Number(rng.weighted<string>(keys));
  const fault = rng.weighted<() => FaultKind>([
    // Delays around the lease: shorter, and longer, than a claim holds.
    [6, () => ({ delayMs: rng.int(Math.round(t.leaseMs / 4), t.leaseMs * 2) })],
    [3, () => ({ error: rng.weighted(ERROR_CODES) })],
    [2, () => ({ drop: rng.pick(['before', 'after'] as const) })],
  ])();
  return {
    kind: 'fault',
    at: rng.int(0, t.horizonMs - 1),
    apiKey,
    fault,
    times: rng.int(1, 3),
    slot: rng.chance(0.35) ? rng.int(0, slots - 1) : null,
    brokerId: rng.chance(0.15) ? rng.int(0, t.brokers - 1) : null,
    forMs: rng.int(100, 500),
  };
}

function drawTopic(rng: Prng, t: ChaosTuning, name: string): TopicSpec {
  const rf = rng.int(1, 2);
  const n = rng.int(2, 7);
  const brokers = Array.from({ length: t.brokers }, (_, i) => i);
  return {
    name,
    assignments: Array.from({ length: n }, () => rng.sample(brokers, rf)),
    bytes: Array.from({ length: n }, () => rng.int(t.partitionBytes[0], t.partitionBytes[1])),
  };
}

/** A target for each partition of `topic` (some left out): same replication factor, at least one new replica. */
function drawTargets(rng: Prng, t: ChaosTuning, topic: TopicSpec): { topic: string; partition: number; replicas: number[] }[] {
  const brokers = Array.from({ length: t.brokers }, (_, i) => i);
  const out: { topic: string; partition: number; replicas: number[] }[] = [];
  topic.assignments.forEach((current, partition) => {
    if (out.length > 0 && rng.chance(0.15)) return;
    let target: number[];
    do target = rng.sample(brokers, current.length);
    while (target.every((b) => current.includes(b)));
    out.push({ topic: topic.name, partition, replicas: target });
  });
  return out;
}

function drawConcurrency(rng: Prng): Concurrency {
  return rng.weighted<() => Concurrency>([
    [3, () => ({ perBroker: rng.int(1, 2), cluster: null })],
    [2, () => ({ perBroker: null, cluster: rng.int(1, 2) })],
    [1, () => ({ perBroker: rng.int(1, 2), cluster: rng.int(1, 3) })],
  ])();
}

/** A time for an action at or after `from`: mostly inside the window of a fault or pause already drawn. */
function actionTime(rng: Prng, t: ChaosTuning, from: number, windows: readonly [number, number][]): number {
  const open = windows.filter(([, end]) => end > from);
  if (open.length > 0 && rng.chance(0.6)) {
    const [start, end] = rng.pick(open);
    return rng.int(Math.max(start, from), end);
  }
  return rng.int(from, Math.max(from, t.horizonMs - 1));
}

export function drawSchedule(seed: number, tuning: ChaosTuning = DEFAULT_TUNING): ChaosSchedule {
  const t = tuning;
  const rng = new Prng(seed);
  const slots = rng.int(t.instances[0], t.instances[1]);
  const requestTimeoutMs = Math.round(t.leaseMs * rng.weighted(t.requestTimeouts));
  const skews = Array.from({ length: slots }, () => skewOf(rng, t.maxSkewMs));
  const postCount = rng.int(1, 4);
  const topics = Array.from({ length: postCount }, (_, i) => drawTopic(rng, t, `t${i}`));
  const foreignBroker = rng.int(0, t.brokers - 1);
  topics.push({ name: FOREIGN_TOPIC, assignments: [[foreignBroker]], bytes: [0] });
  const events: ChaosEvent[] = [];

  // Faults, kills and pauses first: actions are then drawn partly inside their windows.
  const windows: [number, number][] = [];
  for (let i = rng.int(1, 6); i > 0; i--) {
    const f = drawFault(rng, t, slots);
    events.push(f);
    // A request delayed at the end of the fault's armed time is answered its delay later.
    windows.push([f.at, f.at + f.forMs + ('delayMs' in f.fault ? f.fault.delayMs : 0)]);
  }
  for (
    let i = rng.weighted([
      [6, 0],
      [3, 1],
      [1, 2],
    ]);
    i > 0;
    i--
  ) {
    const at = rng.int(0, t.horizonMs - 1);
    events.push({ kind: 'kill', at, slot: rng.int(0, slots - 1), restartAfterMs: rng.chance(0.7) ? rng.int(20, 400) : null });
  }
  for (
    let i = rng.weighted([
      [5, 0],
      [3, 1],
      [1, 2],
    ]);
    i > 0;
    i--
  ) {
    const p = { kind: 'pause' as const, at: rng.int(0, t.horizonMs - 1), slot: rng.int(0, slots - 1), ms: rng.int(50, t.leaseMs * 2) };
    events.push(p);
    windows.push([p.at, p.at + p.ms]);
  }

  // A broker stopped for a while in some runs (moves through it stall; leaders move).
  if (rng.chance(0.2)) {
    events.push({ kind: 'broker', at: rng.int(0, t.horizonMs - 1), broker: rng.int(0, t.brokers - 1), ms: rng.int(100, t.leaseMs * 2) });
  }

  const postTimes: number[] = [];
  for (let post = 0; post < postCount; post++) {
    const at = rng.int(0, Math.round(t.horizonMs / 2));
    postTimes.push(at);
    const paced = rng.chance(0.65);
    events.push({
      kind: 'post',
      at,
      post,
      via: rng.int(0, slots - 1),
      partitions: drawTargets(rng, t, topics[post]),
      // Unpaced moves always throttled (the throttle's removal is what is checked); paced mostly.
      throttle: !paced || rng.chance(0.7) ? rng.int(1_000_000, 4_000_000) : null,
      concurrency: paced ? drawConcurrency(rng) : null,
      order: rng.pick(['size-asc', 'size-desc', 'as-given'] as const),
    });
  }
  for (let i = rng.int(0, 3); i > 0; i--) {
    const post = rng.int(0, postCount - 1);
    const at = actionTime(rng, t, postTimes[post] + 1, windows);
    const body = rng.weighted<() => PatchBody>([
      [3, () => ({ paused: true })],
      [2, () => ({ paused: false })],
      [2, () => ({ throttle: rng.chance(0.2) ? null : rng.int(1_000_000, 4_000_000) })],
      [2, () => ({ concurrency: drawConcurrency(rng) })],
    ])();
    events.push({ kind: 'patch', at, post, via: rng.int(0, slots - 1), body });
    // A pause is mostly lifted again later in the run (the quiesce resumes whatever is left).
    if ('paused' in body && body.paused && rng.chance(0.6)) {
      events.push({ kind: 'patch', at: rng.int(at, at + 300), post, via: rng.int(0, slots - 1), body: { paused: false } });
    }
  }
  for (
    let i = rng.weighted([
      [2, 0],
      [4, 1],
      [2, 2],
    ]);
    i > 0;
    i--
  ) {
    const post = rng.int(0, postCount - 1);
    events.push({ kind: 'delete', at: actionTime(rng, t, postTimes[post] + 1, windows), post, via: rng.int(0, slots - 1) });
  }
  // Stable order by time (insertion order among equal times): the executor fires them in it.
  events.sort((a, b) => a.at - b.at);
  return {
    seed,
    tuning: t,
    requestTimeoutMs,
    skews,
    topics,
    foreign: { broker: foreignBroker, rate: '7777', topic: FOREIGN_TOPIC, replicas: `0:${foreignBroker}` },
    events,
  };
}

const signed = (ms: number): string => (ms >= 0 ? `+${ms}` : `${ms}`);

export function formatFault(e: Extract<ChaosEvent, { kind: 'fault' }>): string {
  const f = e.fault;
  const what = 'delayMs' in f ? `delay ${f.delayMs} ms` : 'error' in f ? `error ${f.error}` : `drop ${f.drop}`;
  const scope = [e.slot !== null && `client gw${e.slot}`, e.brokerId !== null && `broker ${e.brokerId}`].filter(Boolean).join(', ');
  return `fault ${GATEWAY_APIS[e.apiKey] ?? e.apiKey}: ${what} x${e.times}${scope ? ` (${scope})` : ''}, armed ${e.forMs} ms`;
}

export function formatEvent(e: ChaosEvent): string {
  switch (e.kind) {
    case 'post': {
      const parts = e.partitions.map((p) => `${p.topic}-${p.partition}->[${p.replicas.join(',')}]`).join(' ');
      const pacing = e.concurrency ? `paced perBroker=${e.concurrency.perBroker} cluster=${e.concurrency.cluster} ${e.order}` : 'unpaced';
      return `POST #${e.post} via gw${e.via}: ${parts} ${pacing} throttle=${e.throttle}`;
    }
    case 'patch':
      return `PATCH #${e.post} via gw${e.via}: ${JSON.stringify(e.body)}`;
    case 'delete':
      return `DELETE #${e.post} via gw${e.via}`;
    case 'kill':
      return `kill gw${e.slot}${e.restartAfterMs === null ? ' (not restarted)' : `, restarted after ${e.restartAfterMs} ms`}`;
    case 'pause':
      return `pause gw${e.slot}'s Kafka requests for ${e.ms} ms`;
    case 'broker':
      return `stop broker ${e.broker} for ${e.ms} ms`;
    case 'fault':
      return formatFault(e);
  }
}

/** The schedule as text: what a failing seed prints, and what a replay runs again. */
export function formatSchedule(s: ChaosSchedule): string {
  const t = s.tuning;
  const f = s.foreign;
  const clocks = s.skews.map((k, i) => `gw${i} clock ${signed(k)} ms`).join(', ');
  const timings = `lease ${t.leaseMs} ms, Kafka request timeout ${s.requestTimeoutMs} ms, reconcile ${t.reconcileIntervalMs} ms`;
  const topic = (x: TopicSpec) => `${x.name} ${JSON.stringify(x.assignments)} (${x.bytes.map((b) => Math.round(b / 1000)).join('/')} kB)`;
  const lines = [
    `seed ${s.seed}: ${t.brokers} brokers, ${s.skews.length} instances (${clocks})`,
    `  ${timings}, poll ${t.pacingPollMs} ms, start timeout ${t.startTimeoutMs} ms`,
    `  topics: ${s.topics.map(topic).join('; ')}`,
    `  foreign throttles: broker ${f.broker} leader.replication.throttled.rate=${f.rate};` +
      ` topic ${f.topic} follower.replication.throttled.replicas=${f.replicas}`,
    ...s.events.map((e) => `  @${String(e.at).padStart(4)} ms  ${formatEvent(e)}`),
  ];
  return lines.join('\n');
}
