// One chaos run per seed: draw the schedule (./schedule.ts), start the simulator and the
// instances (./cluster.ts), fire the schedule's events at their times (client actions through
// HTTP, kills, restarts, pauses, faults), then quiesce: faults removed, killed instances due for a
// restart restarted (a fresh one started if none is alive), pauses the schedule left in place
// lifted, and wait (on conditions, polled) until every reassignment has ended, nothing moves in
// Kafka and no throttle of the gateway's is left. Then the invariants (./invariants.ts) against
// an independent read, and on a violation a trace: the seed, the schedule, what the clients
// got back and what the cluster recorded, and the instances' last warnings.
import './clock.js'; // first: Date.now is replaced before any gateway module takes a reference to it
import './shared-validator.js'; // before src/http: one request validator for every app
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { describeConfigOverrides } from '../../src/kafka/configs.js';
import { THROTTLE_KEYS } from '../../src/reconcile/throttle-sync.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import { StateStore } from '../../src/state/store.js';
import { formatOutcome, History, perform, resume } from './actions.js';
import { realNow } from './clock.js';
import { ChaosCluster, kafkaEnv } from './cluster.js';
import { checkRun, type FinalState, type Violation } from './invariants.js';
import { formatEntry } from './journal.js';
import { DEFAULT_TUNING, drawSchedule, formatFault, formatSchedule, type ChaosEvent, type ChaosSchedule, type ChaosTuning } from './schedule.js';

const STATE_TOPIC = '_kafka_admin_gateway_state';
/** How long the quiesce waits for everything to settle before calling the run unsettled. */
const SETTLE_MS = 20_000;
const POLL_MS = 20;

export interface RunResult {
  seed: number;
  schedule: ChaosSchedule;
  violations: Violation[];
  /** The readable trace (always built when there are violations). */
  trace: string | null;
  /** Wall time of the run (ms), quiesce included. */
  ms: number;
  /** What the run exercised (for the summary): POSTs accepted, DELETEs cancelled, moves started ... */
  stats: Record<string, number>;
}

const tick = () => new Promise<void>((r) => setTimeout(r, POLL_MS));

async function fire(cluster: ChaosCluster, history: History, e: ChaosEvent, restarts: Set<number>, actions: Promise<void>[]): Promise<void> {
  switch (e.kind) {
    case 'post':
    case 'patch':
    case 'delete':
      actions.push(perform(cluster, history, e));
      return;
    case 'kill': {
      const inst = cluster.kill(e.slot);
      history.note(`kill ${inst.id}`);
      if (e.restartAfterMs === null) return;
      restarts.add(e.slot);
      cluster.after(e.restartAfterMs, () => {
        if (!restarts.delete(e.slot)) return;
        void cluster.restart(e.slot).then((i) => history.note(`restart gw${e.slot} as ${i.id}`));
      });
      return;
    }
    case 'broker':
      history.note(`stop broker ${e.broker} for ${e.ms} ms`);
      await cluster.stopBroker(e.broker, e.ms);
      return;
    case 'pause': {
      const inst = cluster.slots[e.slot]!;
      cluster.pause(e.slot, e.ms);
      history.note(`pause ${inst.id} for ${e.ms} ms${inst.killedAt !== null ? ' (dead: nothing to pause)' : ''}`);
      return;
    }
    case 'fault': {
      const clientId = e.slot === null ? undefined : cluster.slots[e.slot]!.id;
      const fault = cluster.sim.faults.add({
        apiKey: e.apiKey,
        times: e.times,
        ...('error' in e.fault ? { error: { code: e.fault.error } } : e.fault),
        ...(clientId !== undefined && { clientId }),
        ...(e.brokerId !== null && { brokerId: e.brokerId }),
      });
      history.note(`${formatFault(e)}${clientId ? ` [${clientId}]` : ''}`);
      cluster.after(e.forMs, () => cluster.sim.faults.remove(fault.id));
      return;
    }
  }
}

/** Polls until settled (or SETTLE_MS): the final state as an independent client reads it. */
async function quiesce(cluster: ChaosCluster, history: History, s: ChaosSchedule, settleMs: number): Promise<FinalState> {
  const checker = createKafkaGateway(parseKafkaConfig({ ...kafkaEnv(cluster.requestTimeoutMs), KAFKA_BOOTSTRAP_SERVERS: cluster.sim.bootstrapServers.join(','), KAFKA_CLIENT_ID: 'chaos-checker' }));
  try {
    const store = new StateStore(checker.stateTopic({ name: STATE_TOPIC }));
    const deadline = realNow() + settleMs;
    const resumedAt = new Map<string, number>();
    let records: ReassignmentRecord[] = [];
    let throttles: Record<string, Record<string, string>> = {};
    let unsettled = 'not read yet';
    for (;;) {
      try {
        records = [...(await store.refresh()).reassignments.values()];
        const live = records.filter((r) => r.state === 'pending' || r.state === 'running');
        for (const r of live) {
          // A pause the schedule left in place (or a resume whose answer was lost): lift it.
          if (!r.paused || realNow() - (resumedAt.get(r.id) ?? 0) < 500) continue;
          resumedAt.set(r.id, realNow());
          const post = Number(/^t(\d+)$/.exec(r.partitions[0]?.topic ?? '')?.[1] ?? -1);
          await resume(cluster, history, post, r.id);
        }
        const moving = cluster.sim.model.movingPartitionCount();
        throttles = await readThrottles(checker, s);
        const ours = Object.entries(throttles).filter(([res, cfg]) => Object.keys(cfg).some((k) => !isForeign(s, res, k)));
        const held = cluster.delayedUntil - realNow();
        unsettled = [
          held > 0 && `a request held by a delay fault is released in ${Math.round(held)} ms`,
          live.length > 0 && `reassignments still live: ${live.map((r) => `${r.id} ${r.state}${r.paused ? ' (paused)' : ''}`).join(', ')}`,
          moving > 0 && `${moving} partitions still moving in Kafka`,
          ours.length > 0 && `throttles still set: ${ours.map(([res, cfg]) => `${res} ${JSON.stringify(cfg)}`).join(', ')}`,
        ]
          .filter(Boolean)
          .join('; ');
        if (unsettled === '') break;
      } catch (err) {
        unsettled = `the final read failed: ${err instanceof Error ? err.message : String(err)}`;
      }
      if (realNow() > deadline) break;
      await tick();
    }
    const replicas = new Map<string, number[]>();
    for (const t of s.topics) {
      const view = cluster.sim.model.topicView({ name: t.name });
      view?.partitions.forEach((p, i) => replicas.set(`${t.name}-${i}`, [...p.replicas]));
    }
    return { records, throttles, replicas, unsettled: unsettled === '' ? null : `after ${settleMs} ms of quiet: ${unsettled}` };
  } finally {
    await checker.close().catch(() => undefined);
  }
}

function isForeign(s: ChaosSchedule, resource: string, name: string): boolean {
  const f = s.foreign;
  return (resource === `broker:${f.broker}` && name === 'leader.replication.throttled.rate') || (resource === `topic:${f.topic}` && name === 'follower.replication.throttled.replicas');
}

async function readThrottles(kafka: ReturnType<typeof createKafkaGateway>, s: ChaosSchedule): Promise<Record<string, Record<string, string>>> {
  const resources = [
    ...s.topics.map((t) => ({ kind: 'topic' as const, name: t.name })),
    ...Array.from({ length: s.tuning.brokers }, (_, i) => ({ kind: 'broker' as const, name: String(i) })),
  ];
  const out: Record<string, Record<string, string>> = {};
  for (const r of await describeConfigOverrides(kafka, resources, THROTTLE_KEYS)) {
    if (!r.ok) throw new Error(`DescribeConfigs ${r.kind} ${r.name}: ${JSON.stringify(r.error)}`);
    if (Object.keys(r.value).length > 0) out[`${r.kind}:${r.name}`] = r.value;
  }
  return out;
}

function trace(cluster: ChaosCluster, history: History, violations: Violation[]): string {
  const t0 = history.t0;
  const posts = new Set(violations.map((v) => v.post));
  const all = posts.size === 0 || posts.has(null);
  const journal = cluster.journal.entries.filter((j) => all || posts.has(Number(j.topic.slice(1))));
  const timeline = [
    ...history.notes.map((n) => ({ at: n.at, line: `@${String(Math.round(n.at - t0)).padStart(4)} ms  ${n.text}` })),
    ...history.outcomes.map((o) => ({ at: o.sentAt, line: formatOutcome(o, t0) })),
    ...journal.map((j) => ({ at: j.realAt, line: formatEntry(j, t0) })),
  ].sort((a, b) => a.at - b.at);
  const logs = cluster.all.filter((i) => i.log.length > 0).map((i) => `  ${i.id}:\n${i.log.slice(-6).map((l) => `    ${l.slice(0, 300)}`).join('\n')}`);
  return [
    `chaos: seed ${cluster.schedule.seed} violated ${violations.length} invariant(s):`,
    ...violations.map((v) => `  [${v.invariant}]${v.post !== null ? ` POST #${v.post}:` : ''} ${v.message}`),
    'schedule:',
    formatSchedule(cluster.schedule),
    'what happened (real time since the schedule started):',
    ...timeline.slice(0, 200).map((x) => `  ${x.line}`),
    ...(timeline.length > 200 ? [`  ... ${timeline.length - 200} more`] : []),
    ...(logs.length > 0 ? ['instances’ last warnings:', ...logs] : []),
  ].join('\n');
}

export async function runSeed(seed: number, opts: { tuning?: ChaosTuning; settleMs?: number; alwaysTrace?: boolean } = {}): Promise<RunResult> {
  return runSchedule(drawSchedule(seed, opts.tuning ?? DEFAULT_TUNING), opts);
}

export interface RunOptions {
  settleMs?: number;
  alwaysTrace?: boolean;
  /**
   * TEST ONLY: runs once the schedule's actions are answered, before the quiesce: a test of the
   * harness itself acts on the cluster there as a misbehaving client would (test/chaos/selftest).
   */
  inject?: (cluster: ChaosCluster, history: History) => Promise<void>;
}

/** One run of a given schedule (a seed's, or one written by hand to pin a scenario down). */
export async function runSchedule(schedule: ChaosSchedule, opts: RunOptions = {}): Promise<RunResult> {
  const started = realNow();
  const seed = schedule.seed;
  const cluster = await ChaosCluster.start(schedule);
  const setupMs = realNow() - started;
  try {
    const history = new History(realNow());
    if (cluster.requestTimeoutRefused) history.note(cluster.requestTimeoutRefused);
    const actions: Promise<void>[] = [];
    const restarts = new Set<number>();
    // The schedule itself: each event at its time after t0 (a fault schedule, not a synchronisation).
    await Promise.all(schedule.events.map((e) => new Promise<void>((resolve) => cluster.after(e.at, () => void fire(cluster, history, e, restarts, actions).finally(resolve)))));
    await Promise.allSettled(actions);
    await opts.inject?.(cluster, history);
    const actedMs = realNow() - history.t0;
    await cluster.calm();
    for (const slot of restarts) history.note(`restart gw${slot} as ${(await cluster.restart(slot)).id} (quiesce)`);
    if (cluster.live(0) === null) history.note(`no instance alive: start ${(await cluster.restart(0)).id} (quiesce)`);
    const quiet = realNow();
    const final = await quiesce(cluster, history, schedule, opts.settleMs ?? SETTLE_MS);
    const settleMs = realNow() - quiet;
    const violations = checkRun(schedule, history, cluster.journal.entries, final);
    const starts = cluster.journal.entries.filter((j) => j.kind === 'altered' && j.target !== null && !j.wasMoving && j.moving).length;
    const stats = {
      posts: history.posts().length,
      accepted: history.ids.size,
      cancelled: history.outcomes.filter((o) => o.event.kind === 'delete' && o.status === 200 && o.body?.state === 'cancelled').length,
      kills: history.notes.filter((n) => n.text.startsWith('kill')).length,
      starts,
      setupMs,
      actedMs,
      settleMs,
    };
    return { seed, schedule, violations, trace: violations.length > 0 || opts.alwaysTrace ? trace(cluster, history, violations) : null, ms: realNow() - started, stats };
  } finally {
    await cluster.close();
  }
}

/** A run the harness itself could not carry out (the cluster did not start): reported as such, never as passed. */
function harnessFailure(seed: number, err: unknown, tuning?: ChaosTuning): RunResult {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  const violations = [{ invariant: 'harness', post: null, message: `the run could not be carried out: ${message}` }];
  return { seed, schedule: drawSchedule(seed, tuning ?? DEFAULT_TUNING), violations, trace: `chaos: seed ${seed}: ${violations[0]!.message}`, ms: 0, stats: {} };
}

/** Runs `seeds`, `parallel` at a time (each run has its own simulator); results in seed order. */
export async function runSeeds(
  seeds: readonly number[],
  opts: { parallel?: number; tuning?: ChaosTuning; alwaysTrace?: boolean; onResult?: (r: RunResult) => void } = {},
): Promise<RunResult[]> {
  const results: RunResult[] = new Array(seeds.length);
  let next = 0;
  const worker = async () => {
    while (next < seeds.length) {
      const i = next++;
      results[i] = await runSeed(seeds[i]!, { ...(opts.tuning && { tuning: opts.tuning }), ...(opts.alwaysTrace && { alwaysTrace: true }) }).catch((err: unknown) => harnessFailure(seeds[i]!, err, opts.tuning));
      opts.onResult?.(results[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.parallel ?? 1) }, worker));
  return results;
}
