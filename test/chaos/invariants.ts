// What must hold after every chaos run, checked against what the cluster itself recorded (the
// simulator's journal: ./journal.ts) and an independent read at the end (a fresh Kafka client:
// the state topic's records and the throttle configs; the simulator's placement), never against
// what the gateway instances say about themselves:
//
//   throttles-left     no throttle config is left but the foreign ones;
//   foreign-restored   the foreign values (set before the run by someone else) are exactly as set;
//   concurrency        a paced reassignment never has more moves in flight in Kafka than its
//                      bounds (the largest it was ever given: a lowered bound lets moves finish;
//                      the per-broker bound counts each move's source as its leader when it
//                      started, so it is not checked in a run that stopped a broker: leaders
//                      move then, and the gateway rightly counts the new one);
//   started-twice      no partition is started twice, nor sent to Kafka by two instances (two
//                      wave starters at once: the re-send is harmless in Kafka while the move
//                      runs, the broken exclusion behind it is not);
//   sent-twice         no partition is sent to Kafka twice by one instance either (G5 of
//                      docs/reliability.md: "no partition is sent twice"): a write re-sent
//                      after its answer was lost lands up to a request timeout later than the
//                      lease check before the first send allowed for, and, landing after a
//                      cancel, starts the move again;
//   cancel-honoured    after a DELETE answered 200 `cancelled`, no partition of it starts, and
//                      its record ends cancelled;
//   pause-honoured     after a PATCH {paused: true} answered 200, no partition of it starts until
//                      a resume is sent;
//   durable            a POST answered 202 has its record, finished, with every partition it
//                      asked for, each completed, cancelled or failed;
//   record-vs-cluster  a partition recorded completed is at its target in Kafka; one recorded
//                      failed never moved (cancelled may be either: Kafka can finish a move in
//                      the instant before its cancel, and the record cannot know);
//   converged          once faults stop, every reassignment ends and every throttle goes.
//
// Partitions belong to exactly one POST of a run (each POST has a topic of its own), so every
// entry of the journal is attributed to its POST by topic.
import type { ReassignmentRecord } from '../../src/state/records.js';
import type { History, Outcome } from './actions.js';
import { isEnd, isStart, type Altered, type JournalEntry } from './journal.js';
import type { ChaosEvent, ChaosSchedule, Concurrency } from './schedule.js';

export interface Violation {
  invariant: string;
  /** The POST it is about, when it is about one. */
  post: number | null;
  message: string;
}

export interface FinalState {
  /** Reassignment records in the state topic, read by a fresh client. */
  records: ReassignmentRecord[];
  /** Throttle config overrides: `broker:<id>` / `topic:<name>` -> {name: value}. */
  throttles: Record<string, Record<string, string>>;
  /** Kafka's replicas of each partition of the run's topics: `topic-partition` -> replicas. */
  replicas: Map<string, number[]>;
  /** Null when the quiesce converged, else what was still not settled. */
  unsettled: string | null;
}

const TERMINAL = new Set(['completed', 'cancelled', 'failed']);
const key = (topic: string, partition: number): string => `${topic}-${partition}`;
const sameSet = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((x) => b.includes(x));
const postOfTopic = (topic: string): number | null => (/^t(\d+)$/.exec(topic) ? Number(topic.slice(1)) : null);
const by = (j: Altered): string => j.source?.clientId ?? '?';

/** The largest bounds a paced POST ever had (null at a level = unbounded at some point). */
function widestBounds(s: ChaosSchedule, h: History, post: number): Concurrency | null {
  const e = s.events.find((x) => x.kind === 'post' && x.post === post);
  if (!e || e.kind !== 'post' || e.concurrency === null) return null;
  const all: Concurrency[] = [e.concurrency];
  // Every PATCH sent, answered or not: one whose answer was lost may have been applied.
  for (const o of h.outcomes) {
    if (o.event.kind !== 'patch' || o.event.post !== post || o.via === null) continue;
    if ('concurrency' in o.event.body) all.push(o.event.body.concurrency);
  }
  const widest = (level: 'perBroker' | 'cluster') => (all.some((c) => c[level] === null) ? null : Math.max(...all.map((c) => c[level]!)));
  return { perBroker: widest('perBroker'), cluster: widest('cluster') };
}

/** Replays the journal of one POST's partitions, counting its moves in flight at each start. */
function exceeded(topic: string, bounds: Concurrency, journal: readonly JournalEntry[]): string | null {
  const inFlight = new Map<number, number[]>(); // partition -> brokers taking part (source and destinations)
  for (const j of journal) {
    if (j.topic !== topic) continue;
    if (isEnd(j)) inFlight.delete(j.partition);
    if (!isStart(j)) continue;
    const source = j.leaderBefore >= 0 ? j.leaderBefore : j.replicasBefore[0];
    inFlight.set(j.partition, [...new Set([source, ...j.target!.filter((b) => !j.replicasBefore.includes(b))])]);
    const load = new Map<number, number>();
    for (const brokers of inFlight.values()) for (const b of brokers) load.set(b, (load.get(b) ?? 0) + 1);
    const busiest = Math.max(...load.values());
    if ((bounds.cluster !== null && inFlight.size > bounds.cluster) || (bounds.perBroker !== null && busiest > bounds.perBroker)) {
      const partitions = [...inFlight.keys()].join(',');
      const when = `when ${topic}-${j.partition} started (by ${by(j)})`;
      return `${when}, ${inFlight.size} moves were in flight (partitions ${partitions}), the busiest broker in ${busiest}`;
    }
  }
  return null;
}

function checkConcurrency(s: ChaosSchedule, h: History, journal: readonly JournalEntry[], out: Violation[]): void {
  const brokersStopped = s.events.some((e) => e.kind === 'broker');
  for (const e of s.events) {
    if (e.kind !== 'post') continue;
    const widest = widestBounds(s, h, e.post);
    if (!widest) continue;
    const bounds = brokersStopped ? { ...widest, perBroker: null } : widest;
    if (bounds.perBroker === null && bounds.cluster === null) continue;
    const worst = exceeded(`t${e.post}`, bounds, journal);
    if (!worst) continue;
    const message = `bounds perBroker=${bounds.perBroker} cluster=${bounds.cluster} exceeded ${worst}`;
    out.push({ invariant: 'concurrency', post: e.post, message });
  }
}

function checkStarts(journal: readonly JournalEntry[], out: Violation[]): void {
  // Per partition (each is one POST's): every target Kafka applied to it (a cancel is not one).
  const sends = new Map<string, Altered[]>();
  for (const j of journal) {
    if (j.kind !== 'altered' || j.target === null) continue;
    const k = key(j.topic, j.partition);
    sends.set(k, [...(sends.get(k) ?? []), j]);
  }
  for (const [k, list] of sends) {
    if (list.length < 2) continue;
    const post = postOfTopic(k.slice(0, k.lastIndexOf('-')));
    const senders = [...new Set(list.map(by))];
    const starts = list.filter(isStart).length;
    const what = `${k} sent to Kafka ${list.length} times (${starts} of them starting a move)`;
    if (starts > 1 || senders.length > 1) {
      const two = senders.length > 1 ? ': two instances started the same move' : '';
      out.push({ invariant: 'started-twice', post, message: `${what} by ${senders.join(' and ')}${two}` });
    } else {
      out.push({ invariant: 'sent-twice', post, message: `${what}, all by ${senders[0]}: the same write sent again while the move ran` });
    }
  }
}

/** Starts of `post`'s partitions in (from, to). */
function startsBetween(journal: readonly JournalEntry[], post: number, from: number, to: number): Altered[] {
  return journal.filter((j): j is Altered => isStart(j) && j.topic === `t${post}` && j.realAt > from && j.realAt < to);
}

function recordOf(final: FinalState, h: History, post: number): ReassignmentRecord | undefined {
  const id = h.ids.get(post);
  if (id !== undefined) return final.records.find((r) => r.id === id);
  return final.records.find((r) => r.partitions.some((p) => p.topic === `t${post}`));
}

function checkCancels(h: History, journal: readonly JournalEntry[], final: FinalState, out: Violation[]): void {
  for (const o of h.outcomes) {
    if (o.event.kind !== 'delete' || o.status !== 200 || (o.body as { state?: string })?.state !== 'cancelled') continue;
    const post = o.event.post;
    const late = startsBetween(journal, post, o.answeredAt, Infinity);
    if (late.length > 0) {
      const starts = late.map((j) => `${j.topic}-${j.partition} started by ${by(j)} ${Math.round(j.realAt - o.answeredAt)} ms later`);
      out.push({ invariant: 'cancel-honoured', post, message: `DELETE answered cancelled, then ${starts.join('; ')}` });
    }
    const r = recordOf(final, h, post);
    if (!r || r.state === 'cancelled') continue;
    out.push({ invariant: 'cancel-honoured', post, message: `DELETE answered cancelled, but the record ends ${r.state}` });
  }
}

type Patch = Outcome & { event: Extract<Outcome['event'], { kind: 'patch' }> };
const pausing = (o: Patch, paused: boolean): boolean => 'paused' in o.event.body && o.event.body.paused === paused;

function checkPauses(h: History, journal: readonly JournalEntry[], out: Violation[]): void {
  const patches = h.outcomes.filter((o): o is Patch => o.event.kind === 'patch' && o.via !== null);
  for (const o of patches) {
    if (o.status !== 200 || !pausing(o, true)) continue;
    const post = o.event.post;
    // Until a resume may have taken effect after the pause: the first sent of those not answered
    // before the pause was (one sent earlier but answered later may have been applied after it).
    const resumes = patches.filter((x) => x.event.post === post && pausing(x, false) && (x.status === 0 || x.answeredAt > o.answeredAt));
    const until = Math.max(o.answeredAt, Math.min(Infinity, ...resumes.map((x) => x.sentAt)));
    const starts = startsBetween(journal, post, o.answeredAt, until).map((j) => `${j.topic}-${j.partition} started by ${by(j)}`);
    if (starts.length === 0) continue;
    out.push({ invariant: 'pause-honoured', post, message: `PATCH paused answered 200, then ${starts.join('; ')} before any resume` });
  }
}

/** durable: what a 202 promised is in the state topic, finished. */
function checkDurable(e: Extract<ChaosEvent, { kind: 'post' }>, id: string, r: ReassignmentRecord | undefined, out: Violation[]): void {
  const fail = (message: string) => out.push({ invariant: 'durable', post: e.post, message });
  if (!r) return void fail(`POST answered 202 (id ${id}) but no record ${id} is in the state topic`);
  const asked = e.partitions.map((p) => key(p.topic, p.partition)).sort();
  const has = r.partitions.map((p) => key(p.topic, p.partition)).sort();
  if (asked.join() !== has.join()) fail(`record ${id} has partitions ${has.join(',')}, the POST asked for ${asked.join(',')}`);
  if (!TERMINAL.has(r.state)) fail(`record ${id} ends ${r.state}`);
  const open = r.partitions.filter((p) => !TERMINAL.has(p.state)).map((p) => `${p.topic}-${p.partition} ${p.state}`);
  if (open.length > 0) fail(`record ${id} (${r.state}) has partitions still ${open.join(', ')}`);
}

function checkRecords(s: ChaosSchedule, h: History, final: FinalState, out: Violation[]): void {
  for (const e of s.events) {
    if (e.kind !== 'post') continue;
    const r = recordOf(final, h, e.post);
    const id = h.ids.get(e.post);
    if (id !== undefined) checkDurable(e, id, r, out);
    for (const p of r?.partitions ?? []) {
      const at = final.replicas.get(key(p.topic, p.partition));
      if (p.supersededBy || !at) continue;
      const atOriginal = sameSet(at, p.original);
      const atTarget = sameSet(at, p.target);
      const wrong =
        p.state === 'completed' ? !atTarget : p.state === 'failed' ? !atOriginal : p.state === 'cancelled' && !atOriginal && !atTarget;
      if (!wrong) continue;
      const recorded = `recorded ${p.state} (original [${p.original.join(',')}], target [${p.target.join(',')}])`;
      const message = `${p.topic}-${p.partition} ${recorded} is at [${at.join(',')}] in Kafka`;
      out.push({ invariant: 'record-vs-cluster', post: e.post, message });
    }
  }
}

function checkThrottles(s: ChaosSchedule, final: FinalState, out: Violation[]): void {
  const f = s.foreign;
  const foreign: Record<string, Record<string, string>> = {
    [`broker:${f.broker}`]: { 'leader.replication.throttled.rate': f.rate },
    [`topic:${f.topic}`]: { 'follower.replication.throttled.replicas': f.replicas },
  };
  const fail = (invariant: string, message: string) => out.push({ invariant, post: null, message });
  for (const [resource, configs] of Object.entries(final.throttles)) {
    for (const [name, value] of Object.entries(configs)) {
      const expected = foreign[resource]?.[name];
      if (expected === undefined) fail('throttles-left', `${resource} ${name}=${value} left behind`);
      else if (expected !== value) fail('foreign-restored', `${resource} ${name}=${value}, was ${expected}`);
    }
  }
  for (const [resource, configs] of Object.entries(foreign)) {
    for (const [name, value] of Object.entries(configs)) {
      if (final.throttles[resource]?.[name] === undefined) fail('foreign-restored', `${resource} ${name} removed (was ${value})`);
    }
  }
}

/** Every violated invariant of a run, in the order of the list at the top of this file. */
export function checkRun(s: ChaosSchedule, h: History, journal: readonly JournalEntry[], final: FinalState): Violation[] {
  const out: Violation[] = [];
  checkThrottles(s, final, out);
  checkConcurrency(s, h, journal, out);
  checkStarts(journal, out);
  checkCancels(h, journal, final, out);
  checkPauses(h, journal, out);
  checkRecords(s, h, final, out);
  if (final.unsettled !== null) out.push({ invariant: 'converged', post: null, message: final.unsettled });
  return out;
}
