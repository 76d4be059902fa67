// The chaos harness's parts on their own: each invariant of test/chaos/invariants.ts fails on the
// violation it names and only on it (hand-made histories and journals), the schedule is a pure
// function of its seed (what makes a failing seed a replay), and an instance's clock skew follows
// its async context (test/chaos/clock.ts) into timers and promise continuations, and no further.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ReassignmentRecord } from '../../src/state/records.js';
import { History, type Outcome } from './actions.js';
import { checkRun, type FinalState } from './invariants.js';
import type { JournalEntry } from './journal.js';
import { realNow, withSkew } from './clock.js';
import { DEFAULT_TUNING, drawSchedule, formatSchedule, type ChaosEvent, type ChaosSchedule, type Concurrency } from './schedule.js';

const TARGETS = [1, 2, 3].map((p) => ({ topic: 't0', partition: p, replicas: [p + 1] }));

function schedule(concurrency: Concurrency | null = { perBroker: null, cluster: 1 }, extra: ChaosEvent[] = []): ChaosSchedule {
  return {
    seed: 0,
    tuning: DEFAULT_TUNING,
    requestTimeoutMs: 200,
    skews: [0, 0],
    topics: [{ name: 't0', assignments: [[0], [1], [2], [3]], bytes: [1, 1, 1, 1] }],
    foreign: { broker: 3, rate: '7777', topic: 'foreign', replicas: '0:3' },
    events: [{ kind: 'post', at: 0, post: 0, via: 0, partitions: TARGETS, throttle: null, concurrency, order: 'as-given' }, ...extra],
  };
}

/** A history with POST #0 answered 202 (id r-0) at 10, plus `more` outcomes. */
function history(s: ChaosSchedule, more: Partial<Outcome>[] = []): History {
  const h = new History(0);
  h.outcomes.push({ event: s.events[0], via: 'gw0', sentAt: 0, answeredAt: 10, status: 202, body: { id: 'r-0' } });
  h.ids.set(0, 'r-0');
  for (const o of more) h.outcomes.push({ via: 'gw1', sentAt: 0, answeredAt: 0, status: 200, body: null, ...o } as Outcome);
  return h;
}

/** Kafka applying partition p's target [p + 1] (it was at [p]), sent by `clientId`. */
function start(at: number, p: number, clientId = 'gw0', wasMoving = false): JournalEntry {
  const moving = { target: [p + 1], wasMoving, moving: true, replicasBefore: [p], replicas: [p + 1, p], leaderBefore: p, leader: p };
  return { kind: 'altered', realAt: at, topic: 't0', partition: p, ...moving, source: { clientId, brokerId: 0 } };
}
const done = (at: number, p: number): JournalEntry => ({ kind: 'completed', realAt: at, topic: 't0', partition: p, replicas: [p + 1] });

function record(state: ReassignmentRecord['state'], partitions: ('completed' | 'cancelled' | 'failed' | 'moving')[]): ReassignmentRecord {
  return {
    id: 'r-0',
    state,
    partitions: TARGETS.map((t, i) => ({ ...t, original: [t.partition], target: t.replicas, state: partitions[i] })),
  } as unknown as ReassignmentRecord;
}

/** Everything in order: the record completed, every partition at its target, only the foreign throttles left. */
function final(over: Partial<FinalState> = {}): FinalState {
  return {
    records: [record('completed', ['completed', 'completed', 'completed'])],
    throttles: {
      'broker:3': { 'leader.replication.throttled.rate': '7777' },
      'topic:foreign': { 'follower.replication.throttled.replicas': '0:3' },
    },
    replicas: new Map(TARGETS.map((t) => [`t0-${t.partition}`, t.replicas])),
    unsettled: null,
    ...over,
  };
}

const invariants = (s: ChaosSchedule, h: History, j: JournalEntry[], f: FinalState) => checkRun(s, h, j, f).map((v) => v.invariant);
const inOrder = [start(20, 1), done(30, 1), start(31, 2), done(40, 2), start(41, 3), done(50, 3)];

test('a run that kept every promise passes', () => {
  const s = schedule();
  assert.deepEqual(checkRun(s, history(s), inOrder, final()), []);
});

test('concurrency: a start while the bound is full; the widest bound a PATCH gave counts', () => {
  const s = schedule();
  const overlap = [start(20, 1), start(25, 2), done(30, 1), done(40, 2), start(41, 3), done(50, 3)];
  assert.deepEqual(invariants(s, history(s), overlap, final()), ['concurrency']);
  const raised = history(s, [{ event: { kind: 'patch', at: 5, post: 0, via: 1, body: { concurrency: { perBroker: null, cluster: 2 } } } }]);
  assert.deepEqual(invariants(s, raised, overlap, final()), []);
});

test('started-twice / sent-twice: a second start, a resend by another instance, a resend by the same one', () => {
  const s = schedule(null);
  assert.deepEqual(invariants(s, history(s), [...inOrder, start(60, 1)], final()), ['started-twice']);
  const rest = [done(30, 1), start(31, 2), start(31, 3), done(40, 2), done(41, 3)];
  assert.deepEqual(invariants(s, history(s), [start(20, 1), start(21, 1, 'gw1', true), ...rest], final()), ['started-twice']);
  assert.deepEqual(invariants(s, history(s), [start(20, 1), start(21, 1, 'gw0', true), ...rest], final()), ['sent-twice']);
});

test('cancel-honoured: a start after the DELETE answered cancelled, or the record not ending cancelled', () => {
  const s = schedule();
  const del = {
    event: { kind: 'delete', at: 15, post: 0, via: 1 } as ChaosEvent,
    sentAt: 15,
    answeredAt: 35,
    body: { state: 'cancelled' },
  };
  const replicas = new Map([
    ['t0-1', [2]],
    ['t0-2', [2]],
    ['t0-3', [3]],
  ]);
  const cancelled = final({ records: [record('cancelled', ['completed', 'cancelled', 'cancelled'])], replicas });
  const before = [start(20, 1), done(30, 1)];
  assert.deepEqual(invariants(s, history(s, [del]), before, cancelled), []);
  assert.deepEqual(invariants(s, history(s, [del]), [...before, start(36, 2)], cancelled), ['cancel-honoured']);
  assert.deepEqual(invariants(s, history(s, [del]), inOrder, final()), ['cancel-honoured', 'cancel-honoured']);
  // A DELETE answered with another state (already finished) promised nothing.
  assert.deepEqual(invariants(s, history(s, [{ ...del, body: { state: 'completed' } }]), inOrder, final()), []);
});

test('pause-honoured: a start after a pause answered, unless a resume was sent that may have come after it', () => {
  const s = schedule();
  const pause = { event: { kind: 'patch', at: 15, post: 0, via: 1, body: { paused: true } } as ChaosEvent, sentAt: 15, answeredAt: 35 };
  assert.deepEqual(invariants(s, history(s, [pause]), inOrder, final()), ['pause-honoured']);
  const early = [start(20, 1), done(30, 1), start(36, 2), done(40, 2), start(41, 3), done(50, 3)];
  const resumeAfter = {
    event: { kind: 'patch', at: 38, post: 0, via: 0, body: { paused: false } } as ChaosEvent,
    sentAt: 38,
    answeredAt: 39,
  };
  const after = history(s, [pause, resumeAfter]);
  assert.deepEqual(invariants(s, after, early, final()), ['pause-honoured'], 'the start at 36 came before the resume was sent');
  assert.deepEqual(invariants(s, after, inOrder, final()), [], 'the start at 41 came after it');
  const inFlight = history(s, [pause, { ...resumeAfter, sentAt: 30, answeredAt: 45 }]);
  assert.deepEqual(invariants(s, inFlight, early, final()), [], 'a resume answered after the pause may have been applied after it');
});

test('durable and record-vs-cluster: a 202 without its record, a record not finished, a completed partition not at its target', () => {
  const s = schedule();
  assert.deepEqual(invariants(s, history(s), inOrder, final({ records: [] })), ['durable']);
  const running = final({ records: [record('running', ['completed', 'completed', 'moving'])] });
  assert.deepEqual(invariants(s, history(s), inOrder, running), ['durable', 'durable']);
  const replicas = new Map([
    ['t0-1', [1]],
    ['t0-2', [3]],
    ['t0-3', [4]],
  ]);
  assert.deepEqual(invariants(s, history(s), inOrder, final({ replicas })), ['record-vs-cluster']);
});

test('throttles-left and foreign-restored: ours left behind, someone else’s changed or removed; converged', () => {
  const s = schedule();
  const f = final();
  const left = { ...f.throttles, 'broker:1': { 'follower.replication.throttled.rate': '1000000' } };
  assert.deepEqual(invariants(s, history(s), inOrder, final({ throttles: left })), ['throttles-left']);
  const changed = { ...f.throttles, 'broker:3': { 'leader.replication.throttled.rate': '1000000' } };
  assert.deepEqual(invariants(s, history(s), inOrder, final({ throttles: changed })), ['foreign-restored']);
  const removed = final({ throttles: { 'broker:3': f.throttles['broker:3'] } });
  assert.deepEqual(invariants(s, history(s), inOrder, removed), ['foreign-restored']);
  assert.deepEqual(invariants(s, history(s), inOrder, final({ unsettled: 'still moving' })), ['converged']);
});

test('a seed is its schedule: the same seed draws the same one, other seeds others; every action after its POST', () => {
  assert.equal(formatSchedule(drawSchedule(42)), formatSchedule(drawSchedule(42)));
  const texts = new Set(Array.from({ length: 50 }, (_, i) => formatSchedule(drawSchedule(i))));
  assert.equal(texts.size, 50);
  for (let seed = 0; seed < 200; seed++) {
    const s = drawSchedule(seed);
    const posted = new Map(s.events.filter((e) => e.kind === 'post').map((e) => [e.kind === 'post' && e.post, e.at]));
    for (const e of s.events) {
      assert.ok(e.at >= 0, `seed ${seed}: ${JSON.stringify(e)}`);
      if (e.kind === 'patch' || e.kind === 'delete') assert.ok(e.at > posted.get(e.post)!, `seed ${seed}: ${e.kind} before its POST`);
    }
    assert.ok(
      s.events.every((e, i) => i === 0 || s.events[i - 1].at <= e.at),
      `seed ${seed}: events in time order`,
    );
  }
});

test('clock skew: Date.now is off by the skew inside withSkew, in its timers and continuations, and nowhere else', async () => {
  const off = (now: number) => Math.round((now - realNow()) / 1000) * 1000;
  const seen = await withSkew(20_000, async () => {
    const direct = Date.now();
    await new Promise((r) => setTimeout(r, 1));
    const afterTimer = Date.now();
    const inTimer = await new Promise<number>((r) => setTimeout(() => r(Date.now()), 1));
    return [direct, afterTimer, inTimer];
  });
  assert.deepEqual(seen.map(off), [20_000, 20_000, 20_000]);
  assert.equal(Math.abs(Date.now() - realNow()) < 1000, true, 'outside: the real clock');
  assert.deepEqual(await withSkew(-30_000, async () => off(Date.now())), -30_000);
});
