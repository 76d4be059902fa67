// The bytes of the copies still catching up, summed per rate class without visiting each copy
// (CopiedSum in src/sim/cluster/replication.ts), must be exactly what copiedBytes reports copy
// by copy, rounding and all. First CopiedSum alone on values picked to sit within a few ulps of
// a whole byte (where its decomposition and copiedBytes's expression can round apart), then the
// tracker with many copies per class at whole and odd rates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { CopiedSum } from '../../../src/sim/cluster/copied-sum.js';
import type { Copy, TrackedPartition } from '../../../src/sim/cluster/replica-copies.js';
import { ReplicationTracker } from '../../../src/sim/cluster/replication.js';

const MiB = 1024 * 1024;

/** A member as the tracker would have it: only the fields CopiedSum reads and writes. */
function member(copied: number, mark: number): Copy<never> {
  return {
    partition: undefined as never,
    brokerId: 0,
    copied,
    cls: null,
    mark,
    target: 0,
    heapIndex: -1,
    group: 0,
    phase: null,
    next: null,
    startedAt: 0,
  };
}

/** What copiedBytes reports for a member when the class accumulator is at x. */
const reported = (c: Copy<never>, x: number): number => Math.floor(c.copied + (x - c.mark) + 1e-6);

/**
 * Members with marks and copied bytes below 2^maxExponent (whole numbers too: whole-byte rates),
 * `count` specs of one to three members sharing a mark (joined at one instant); reads put x a few
 * ulps either side of the point where some member's byte count steps, which is where rounding
 * differs, or on a whole number.
 */
function agreesWithCopiedBytes(maxExponent: number, count: number): void {
  const fractional = fc.integer({ min: 0, max: maxExponent }).chain((e) => fc.double({ min: 0, max: 2 ** e, noNaN: true }));
  const magnitude = fc.oneof(fractional, fractional.map(Math.floor));
  fc.assert(
    fc.property(
      fc.array(fc.record({ mark: magnitude, copied: fc.oneof(fc.constant(0), magnitude), twins: fc.integer({ min: 1, max: 3 }) }), {
        minLength: 1,
        maxLength: count,
      }),
      fc.array(
        fc.record({
          of: fc.nat(),
          steps: fc.integer({ min: 0, max: 5000 }),
          ulps: fc.integer({ min: -8, max: 8 }),
          whole: fc.boolean(),
          drop: fc.nat(),
        }),
        { minLength: 1, maxLength: 30 },
      ),
      (specs, reads) => {
        const sum = new CopiedSum();
        const members: Copy<never>[] = [];
        let acc = 0;
        for (const s of specs) {
          acc = Math.max(acc, s.mark);
          for (let i = 0; i < s.twins; i++) {
            const c = member(s.copied, s.mark);
            sum.add(c, acc);
            members.push(c);
          }
        }
        for (const r of reads) {
          if (members.length === 0) break;
          // x where member `of` steps to another whole byte, nudged by a few ulps; never below acc.
          const c = members[r.of % members.length];
          let x = c.mark - c.copied - 1e-6 + Math.ceil(acc - c.mark + c.copied) + r.steps;
          const ulp = Math.max(Number.MIN_VALUE, 2 ** (Math.floor(Math.log2(Math.max(Math.abs(x), 1))) - 52));
          x = r.whole ? Math.ceil(acc) + r.steps : Math.max(acc, x + r.ulps * ulp);
          acc = x;
          const want = members.reduce((n, m) => n + reported(m, x), 0);
          assert.equal(sum.bytes(x), want, `x=${x}`);
          if (r.drop % 3 === 0) sum.remove(members.splice(r.drop % members.length, 1)[0]);
        }
      },
    ),
    { numRuns: 400 },
  );
}

test('CopiedSum: the sum of copiedBytes, also for accumulators a few ulps from a whole byte of a member', () => {
  agreesWithCopiedBytes(44, 40); // up to 16 TiB accumulated
});

test('CopiedSum: magnitudes where the margin spans every bucket (2^45 bytes and more) sum member by member', () => {
  agreesWithCopiedBytes(49, 4); // few members: the sums stay below 2^53, exact on both sides
});

test('the tracker: many copies per rate class, phases spread and bunched, summed as copiedBytes reports them', () => {
  // The tracker alone, with many members per class, so every bucket and the members near the
  // bucket boundary get exercised: rates that are whole bytes per ms (every accumulator whole,
  // every member at the same phase) and odd ones, copies joining at many different instants.
  interface Part extends TrackedPartition<Part> {
    id: number;
    leader: number;
    size: number;
    group: number;
  }
  fc.assert(
    fc.property(
      fc.oneof(fc.constant(1000 * 1000), fc.constant(8 * MiB), fc.integer({ min: 1000, max: 200 * MiB })),
      fc.array(
        fc.oneof(
          fc.record({
            kind: fc.constant('start' as const),
            count: fc.integer({ min: 1, max: 60 }),
            size: fc.oneof(fc.integer({ min: 0, max: 4 * MiB }), fc.integer({ min: 0, max: 2 ** 42 })),
          }),
          fc.record({
            kind: fc.constant('advance' as const),
            ms: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 100_000 })),
            frac: fc.boolean(),
          }),
          fc.record({ kind: fc.constant('drop' as const), nth: fc.nat() }),
          fc.record({ kind: fc.constant('leader' as const), nth: fc.nat(), leader: fc.integer({ min: -1, max: 2 }) }),
        ),
        { minLength: 1, maxLength: 40 },
      ),
      (bandwidth, ops) => {
        const parts: Part[] = [];
        const tracker = new ReplicationTracker<Part>(
          {
            leader: (p) => p.leader,
            leaderSize: (p) => p.size,
            isUp: () => true,
            wanted: () => true,
            throttled: () => false,
            throttleRate: () => Infinity,
            caughtUp: () => undefined,
            group: (p) => p.group,
          },
          bandwidth,
        );
        let now = 0;
        tracker.advanceTo(now);
        for (const op of ops) {
          if (op.kind === 'start') {
            for (let i = 0; i < op.count; i++) {
              const p = {
                id: parts.length,
                leader: parts.length % 3,
                size: op.size + i * 977,
                group: parts.length % 2,
                trackerFirstCopy: null,
                trackerDirty: false,
                trackerPrev: null,
                trackerNext: null,
              };
              parts.push(p);
              tracker.startCopy(p, 3);
            }
          } else if (op.kind === 'advance') {
            now += op.ms + (op.frac ? 0.37 : 0);
          } else if (parts.length > 0) {
            const p = parts[op.nth % parts.length];
            if (op.kind === 'drop') tracker.dropCopy(p, 3);
            else {
              p.leader = op.leader;
              tracker.invalidatePartition(p);
            }
          }
          tracker.advanceTo(now);
          const walked = [0, 0];
          for (const p of parts) walked[p.group] += tracker.copiedBytes(p, 3) ?? 0;
          const summed = [0, 0];
          tracker.addCopiedBytes(3, summed);
          assert.deepEqual(summed, walked, `after ${JSON.stringify(op)}`);
          const none: number[] = [];
          tracker.addCopiedBytes(0, none); // brokers 0-2 only lead: nothing copies into them
          assert.ok(
            none.every((n) => n === 0),
            `nothing copies into broker 0: ${none.join(',')}`,
          );
        }
      },
    ),
    { numRuns: 200 },
  );
});
