// The incremental replica-copy tracker (rate classes, lazy accumulators, a heap of catch-ups)
// against the reference implementation it replaced, which recomputed every copy's rate on every
// advance (./replication-reference.ts): random clusters and random sequences of copies, clock
// advances, log growth, throttle lists and rates, broker stops and leader changes must give the
// same bytes per copy and the same catch-ups at the same clock times.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { ReplicationEnvironment, TrackedPartition } from '../../../src/sim/cluster/replica-copies.js';
import { ReplicationTracker } from '../../../src/sim/cluster/replication.js';
import { ReferenceReplicationTracker } from './replication-reference.js';

const MiB = 1024 * 1024;
// Clock 0: at 1.7e12 ms a double resolves 0.24 µs, and the reference, which steps in absolute time,
// would lose a few bytes per event to that rounding (the incremental tracker steps relative to its start).
const T0 = 0;

interface Part extends TrackedPartition<Part> {
  id: number;
  leader: number;
  size: number;
  /** Brokers listed in the leader / follower throttled-replica lists. */
  leaderThrottled: Set<number>;
  followerThrottled: Set<number>;
  unwanted: Set<number>;
}

interface World {
  parts: Part[];
  up: Set<number>;
  rates: Map<string, number>;
}

type Op =
  | { kind: 'start'; p: number; b: number }
  | { kind: 'drop'; p: number; b: number }
  | { kind: 'advance'; ms: number }
  | { kind: 'grow'; p: number; bytes: number }
  | { kind: 'throttle'; p: number; side: 'leader' | 'follower'; b: number; on: boolean }
  | { kind: 'rate'; b: number; side: 'leader' | 'follower'; rate: number | null }
  | { kind: 'broker'; b: number; up: boolean }
  | { kind: 'leader'; p: number; b: number }
  | { kind: 'unwanted'; p: number; b: number; on: boolean };

const BROKERS = 4;
const PARTS = 5;

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('start' as const), p: fc.nat(PARTS - 1), b: fc.nat(BROKERS - 1) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('drop' as const), p: fc.nat(PARTS - 1), b: fc.nat(BROKERS - 1) }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 5000 })) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('grow' as const), p: fc.nat(PARTS - 1), bytes: fc.integer({ min: 1, max: 64 * MiB }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('throttle' as const),
      p: fc.nat(PARTS - 1),
      side: fc.constantFrom('leader' as const, 'follower' as const),
      b: fc.nat(BROKERS - 1),
      on: fc.boolean(),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('rate' as const),
      b: fc.nat(BROKERS - 1),
      side: fc.constantFrom('leader' as const, 'follower' as const),
      rate: fc.oneof(
        fc.constant(null),
        fc.constant(0),
        fc.integer({ min: 1, max: 8 }).map((n) => n * MiB),
        fc.integer({ min: 1000, max: 100 * MiB }),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('broker' as const), b: fc.nat(BROKERS - 1), up: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('leader' as const), p: fc.nat(PARTS - 1), b: fc.integer({ min: -1, max: BROKERS - 1 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('unwanted' as const), p: fc.nat(PARTS - 1), b: fc.nat(BROKERS - 1), on: fc.boolean() }),
  },
);

function environment(world: World, events: string[]): ReplicationEnvironment<Part> {
  return {
    leader: (p) => p.leader,
    leaderSize: (p) => p.size,
    isUp: (b) => world.up.has(b),
    wanted: (p, b) => !p.unwanted.has(b),
    throttled: (p, side, b) => (side === 'leader' ? p.leaderThrottled : p.followerThrottled).has(b),
    throttleRate: (b, side) => world.rates.get(`${b}:${side}`) ?? Infinity,
    caughtUp: (p, b, at) => events.push(`${p.id}:${b}@${at}`),
  };
}

function newWorld(sizes: number[], leaders: number[]): World {
  return {
    parts: sizes.map((size, id) => ({
      id,
      leader: leaders[id],
      size,
      leaderThrottled: new Set(),
      followerThrottled: new Set(),
      unwanted: new Set(),
      trackerFirstCopy: null,
      trackerDirty: false,
      trackerPrev: null,
      trackerNext: null,
    })),
    up: new Set(Array.from({ length: BROKERS }, (_, b) => b)),
    rates: new Map(),
  };
}

/** Catch-up events as [partition:broker, time]; times agree to a microsecond. */
function parse(events: string[]): [string, number][] {
  return events.map((e) => {
    const [who, at] = e.split('@');
    return [who, Number(at)];
  });
}

test('the incremental tracker agrees with the reference on random histories (bytes per copy, catch-ups and their times)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 256 * MiB }), { minLength: PARTS, maxLength: PARTS }),
      fc.array(fc.integer({ min: -1, max: BROKERS - 1 }), { minLength: PARTS, maxLength: PARTS }),
      fc.integer({ min: 1, max: 100 }).map((n) => n * MiB),
      fc.array(opArb, { minLength: 1, maxLength: 60 }),
      (sizes, leaders, bandwidth, ops) => {
        // Two identical worlds, one per tracker, changed in lockstep.
        const worlds = [newWorld(sizes, leaders), newWorld(sizes, leaders)];
        const events: string[][] = [[], []];
        const incremental = new ReplicationTracker<Part>(environment(worlds[0], events[0]), bandwidth);
        const reference = new ReferenceReplicationTracker<Part>(environment(worlds[1], events[1]), bandwidth);
        let now = T0;
        incremental.advanceTo(now);
        reference.advanceTo(now);
        for (const op of ops) {
          if (op.kind === 'advance') {
            now += op.ms;
          } else {
            // Both trackers settle up to now before anything changes (as the model's sync() does).
            incremental.advanceTo(now);
            reference.advanceTo(now);
            for (const w of worlds) apply(w, op);
            const p = worlds[0].parts[(op as { p?: number }).p ?? 0];
            switch (op.kind) {
              case 'start':
                incremental.startCopy(p, op.b);
                reference.startCopy(worlds[1].parts[op.p], op.b);
                break;
              case 'drop':
                incremental.dropCopy(p, op.b);
                reference.dropCopy(worlds[1].parts[op.p], op.b);
                break;
              case 'grow':
              case 'throttle':
              case 'leader':
              case 'unwanted':
                incremental.invalidatePartition(p);
                break;
              case 'rate':
                incremental.invalidateRates();
                break;
              case 'broker':
                incremental.invalidateAll();
                break;
            }
          }
          incremental.advanceTo(now);
          reference.advanceTo(now);
          for (let i = 0; i < PARTS; i++) {
            for (let b = 0; b < BROKERS; b++) {
              const mine = incremental.copiedBytes(worlds[0].parts[i], b);
              const theirs = reference.copiedBytes(worlds[1].parts[i], b);
              assert.equal(
                mine === null,
                theirs === null,
                `copy ${i}:${b} exists in one tracker only (${mine} vs ${theirs}) after ${JSON.stringify(op)}`,
              );
              if (mine !== null && theirs !== null)
                assert.ok(Math.abs(mine - theirs) <= 1, `copy ${i}:${b}: ${mine} vs ${theirs} bytes after ${JSON.stringify(op)}`);
            }
          }
          // The same catch-ups (a copy may be started again after catching up) at the same times.
          const order = (x: [string, number], y: [string, number]) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : x[1] - y[1]);
          const [a, b] = [parse(events[0]).sort(order), parse(events[1]).sort(order)];
          assert.deepEqual(
            a.map((e) => e[0]),
            b.map((e) => e[0]),
            'the same copies caught up',
          );
          a.forEach(([who, t], i) => assert.ok(Math.abs(t - b[i][1]) < 1e-3, `${who} caught up at ${t - T0} vs ${b[i][1] - T0} ms`));
        }
      },
    ),
    { numRuns: 200 },
  );
});

function apply(w: World, op: Op): void {
  switch (op.kind) {
    case 'grow':
      w.parts[op.p].size += op.bytes;
      break;
    case 'throttle': {
      const set = op.side === 'leader' ? w.parts[op.p].leaderThrottled : w.parts[op.p].followerThrottled;
      if (op.on) set.add(op.b);
      else set.delete(op.b);
      break;
    }
    case 'rate':
      if (op.rate === null) w.rates.delete(`${op.b}:${op.side}`);
      else w.rates.set(`${op.b}:${op.side}`, op.rate);
      break;
    case 'broker':
      if (op.up) w.up.add(op.b);
      else w.up.delete(op.b);
      break;
    case 'leader':
      w.parts[op.p].leader = op.b;
      break;
    case 'unwanted':
      if (op.on) w.parts[op.p].unwanted.add(op.b);
      else w.parts[op.p].unwanted.delete(op.b);
      break;
  }
}

test('50,000 copies through 12 brokers: an advance past every catch-up handles each one, in time order', () => {
  const world = newWorld([], []);
  for (let b = 0; b < 12; b++) world.up.add(b);
  for (let i = 0; i < 50_000; i++) {
    world.parts.push({
      id: i,
      leader: i % 12,
      size: (1 + (i % 89)) * MiB,
      leaderThrottled: new Set(),
      followerThrottled: new Set(),
      unwanted: new Set(),
      trackerFirstCopy: null,
      trackerDirty: false,
      trackerPrev: null,
      trackerNext: null,
    });
  }
  const events: string[] = [];
  const tracker = new ReplicationTracker<Part>(environment(world, events), 50 * MiB);
  tracker.advanceTo(T0);
  for (const p of world.parts) tracker.startCopy(p, (p.leader + 1 + (p.id % 5)) % 12);
  tracker.advanceTo(T0 + 300_000); // ~4,200 copies share each broker's 50 MiB/s
  const early = events.length;
  assert.ok(early > 0 && early < 50_000, `some copies caught up in the first 5 minutes (${early})`);
  tracker.advanceTo(T0 + 24 * 3600_000);
  assert.equal(events.length, 50_000);
  assert.equal(tracker.copying, 0);
  const times = parse(events).map((e) => e[1]);
  assert.ok(
    times.every((t, i) => i === 0 || t >= times[i - 1]),
    'catch-ups are reported in time order',
  );
});

test('maxCatchUps spreads a burst of catch-ups at one instant over several calls, each at its exact time', () => {
  const world = newWorld([], []);
  for (let i = 0; i < 1000; i++) {
    world.parts.push({
      id: i,
      leader: 0,
      size: MiB,
      leaderThrottled: new Set(),
      followerThrottled: new Set(),
      unwanted: new Set(),
      trackerFirstCopy: null,
      trackerDirty: false,
      trackerPrev: null,
      trackerNext: null,
    });
  }
  const events: string[] = [];
  const tracker = new ReplicationTracker<Part>(environment(world, events), 1000 * MiB);
  tracker.advanceTo(T0);
  for (const p of world.parts) tracker.startCopy(p, 1 + (p.id % 2)); // 500 into broker 1, 500 into 2, 1 s each
  assert.equal(tracker.advanceTo(T0 + 5000, 300), false, 'stopped short');
  assert.equal(events.length, 300);
  assert.equal(tracker.now, T0 + 1000, 'time stays at the catch-ups handled');
  let calls = 1;
  for (let done = false; !done; calls++) done = tracker.advanceTo(T0 + 5000, 300);
  assert.equal(calls, 4, '300 + 300 + 300 + 100');
  assert.equal(events.length, 1000);
  assert.ok(
    parse(events).every(([, at]) => at === T0 + 1000),
    'every copy caught up at 1 s',
  );
  assert.equal(tracker.now, T0 + 5000);
});
