// One chaos run per seed: draw the schedule (./schedule.ts), start the simulator and the
// instances (./cluster.ts), fire the schedule's events at their times (client actions through
// HTTP, kills, restarts, pauses, broker stops, faults), then quiesce (./quiesce.ts): faults
// removed, stopped brokers started, killed instances due for a restart restarted (a fresh one
// started if none is alive), and wait until the cluster has settled. Then the invariants
// (./invariants.ts) against an independent read, and on a violation a trace (./report.ts): the
// seed, the schedule, what the clients got back and what the cluster recorded.
import './clock.js'; // first: Date.now is replaced before any gateway module takes a reference to it
import './shared-validator.js'; // before src/http: one request validator for every app
import { History, perform } from './actions.js';
import { realNow } from './clock.js';
import { ChaosCluster } from './cluster.js';
import { checkRun, type Violation } from './invariants.js';
import { isStart } from './journal.js';
import { quiesce } from './quiesce.js';
import { formatTrace } from './report.js';
import { DEFAULT_TUNING, drawSchedule, formatFault, type ChaosEvent, type ChaosSchedule, type ChaosTuning } from './schedule.js';

/**
 * How long the quiesce waits for everything to settle: ~28 leases, far beyond any step of the
 * gateway's at this run's timings (a dead holder delays its work by one lease, a pending record
 * is resolved a start timeout after it was written), so a run still unsettled after it is stuck.
 */
const SETTLE_MS = 20_000;

export interface RunResult {
  seed: number;
  schedule: ChaosSchedule;
  violations: Violation[];
  /** The readable trace (always built when there are violations). */
  trace: string | null;
  /** Wall time of the run (ms), quiesce included. */
  ms: number;
  /** What the run exercised (for the summary): POSTs accepted, DELETEs cancelled, moves started, phase times. */
  stats: Record<string, number>;
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

/** Runs `e` now: client actions go on in `actions`; `restarts` holds the slots due for a restart. */
async function fire(cluster: ChaosCluster, history: History, e: ChaosEvent, restarts: Set<number>, actions: Promise<void>[]) {
  switch (e.kind) {
    case 'post':
    case 'patch':
    case 'delete':
      actions.push(perform(cluster, history, e));
      return;
    case 'kill': {
      history.note(`kill ${cluster.kill(e.slot).id}`);
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
      const inst = cluster.slots[e.slot];
      cluster.pause(e.slot, e.ms);
      history.note(`pause ${inst.id} for ${e.ms} ms${inst.killedAt !== null ? ' (dead: nothing to pause)' : ''}`);
      return;
    }
    case 'fault': {
      const clientId = e.slot === null ? undefined : cluster.slots[e.slot].id;
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

export async function runSeed(seed: number, opts: RunOptions & { tuning?: ChaosTuning } = {}): Promise<RunResult> {
  return runSchedule(drawSchedule(seed, opts.tuning ?? DEFAULT_TUNING), opts);
}

/** One run of a given schedule (a seed's, or one written by hand to pin a scenario down). */
export async function runSchedule(schedule: ChaosSchedule, opts: RunOptions = {}): Promise<RunResult> {
  const started = realNow();
  const cluster = await ChaosCluster.start(schedule);
  const setupMs = realNow() - started;
  try {
    const history = new History(realNow());
    if (cluster.requestTimeoutRefused) history.note(cluster.requestTimeoutRefused);
    const actions: Promise<void>[] = [];
    const restarts = new Set<number>();
    // The schedule itself: each event at its time after t0 (a fault schedule, not a synchronisation).
    const fired = schedule.events.map(
      (e) => new Promise<void>((resolve) => cluster.after(e.at, () => void fire(cluster, history, e, restarts, actions).finally(resolve))),
    );
    await Promise.all(fired);
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
    const stats = {
      posts: history.posts().length,
      accepted: history.ids.size,
      cancelled: history.outcomes.filter((o) => o.event.kind === 'delete' && o.status === 200 && o.body?.state === 'cancelled').length,
      kills: history.notes.filter((n) => n.text.startsWith('kill')).length,
      starts: cluster.journal.entries.filter(isStart).length,
      setupMs,
      actedMs,
      settleMs,
    };
    const trace = violations.length > 0 || opts.alwaysTrace ? formatTrace(cluster, history, violations) : null;
    return { seed: schedule.seed, schedule, violations, trace, ms: realNow() - started, stats };
  } finally {
    await cluster.close();
  }
}

/** A run the harness itself could not carry out (the cluster did not start): reported as such, never as passed. */
function harnessFailure(seed: number, err: unknown, tuning: ChaosTuning): RunResult {
  const message = `the run could not be carried out: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`;
  const violations = [{ invariant: 'harness', post: null, message }];
  return { seed, schedule: drawSchedule(seed, tuning), violations, trace: `chaos: seed ${seed}: ${message}`, ms: 0, stats: {} };
}

export interface BatchOptions {
  /** Runs at a time (each has its own simulator and instances). Default 1. */
  parallel?: number;
  tuning?: ChaosTuning;
  alwaysTrace?: boolean;
  onResult?: (r: RunResult) => void;
}

/** Runs `seeds`, `parallel` at a time; results in seed order. */
export async function runSeeds(seeds: readonly number[], opts: BatchOptions = {}): Promise<RunResult[]> {
  const tuning = opts.tuning ?? DEFAULT_TUNING;
  const results: RunResult[] = new Array(seeds.length);
  let next = 0;
  const worker = async () => {
    while (next < seeds.length) {
      const i = next++;
      const seed = seeds[i];
      const run = runSeed(seed, { tuning, ...(opts.alwaysTrace && { alwaysTrace: true }) });
      results[i] = await run.catch((err: unknown) => harnessFailure(seed, err, tuning));
      opts.onResult?.(results[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.parallel ?? 1) }, worker));
  return results;
}
