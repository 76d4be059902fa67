import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  PacingPicker,
  countStates,
  moveBrokers,
  nextToStart,
  pacedEtaSeconds,
  planWaves,
  queueOrder,
  checkBounds,
  type ConcurrencyBounds,
  type PacedPartition,
  type PacingOrder,
} from '../../../src/domain/reassignment/index.js';

const BROKERS = 6;

/** A random partition move on brokers 0..5: current replicas, a target that differs, a leader. */
const arbPartition = (i: number): fc.Arbitrary<PacedPartition> =>
  fc
    .record({
      current: fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 1, maxLength: 3 }),
      target: fc.shuffledSubarray([0, 1, 2, 3, 4, 5], { minLength: 1, maxLength: 3 }),
      leaderKnown: fc.boolean(),
      size: fc.integer({ min: 0, max: 1000 }),
    })
    .map(({ current, target, leaderKnown, size }) => ({
      topic: `t${i % 3}`,
      partition: i,
      currentReplicas: current,
      leader: leaderKnown ? current[current.length - 1] : null,
      targetReplicas: target,
      sizeBytes: size,
      state: 'queued' as const,
    }));

const arbPartitions = fc.integer({ min: 0, max: 40 }).chain((n) => fc.tuple(...Array.from({ length: n }, (_, i) => arbPartition(i))));
const arbBounds: fc.Arbitrary<ConcurrencyBounds> = fc.record({
  perBroker: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  cluster: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
});
const arbOrder: fc.Arbitrary<PacingOrder> = fc.constantFrom('size-asc', 'size-desc', 'as-given');

/** The reference: scan the whole queue in order and start every move that fits. */
function naiveStart(
  queue: readonly (readonly number[])[],
  started: Uint8Array,
  load: number[],
  inFlight: { n: number },
  bounds: ConcurrencyBounds,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < queue.length; i++) {
    if (started[i]) continue;
    if (bounds.cluster !== null && inFlight.n >= bounds.cluster) break;
    if (bounds.perBroker !== null && queue[i].some((b) => load[b] >= bounds.perBroker!)) continue;
    started[i] = 1;
    inFlight.n++;
    for (const b of queue[i]) load[b]++;
    out.push(i);
  }
  return out;
}

function fits(brokers: readonly number[], load: number[], inFlight: number, bounds: ConcurrencyBounds): boolean {
  if (bounds.cluster !== null && inFlight >= bounds.cluster) return false;
  return bounds.perBroker === null || brokers.every((b) => load[b] < bounds.perBroker!);
}

describe('pacing: the picker', () => {
  it('starts exactly what a greedy in-order scan starts, never exceeds the bounds, never starts twice, starts everything', () => {
    fc.assert(
      fc.property(arbPartitions, arbBounds, arbOrder, fc.array(fc.nat(), { maxLength: 200 }), (partitions, bounds, order, choices) => {
        const ordered = queueOrder(partitions, order).map((i) => partitions[i]);
        const queue = ordered.map((p) => moveBrokers(p));
        const picker = new PacingPicker(queue, bounds);
        const refStarted = new Uint8Array(queue.length);
        const refLoad = Array<number>(BROKERS).fill(0);
        const refFlight = { n: 0 };
        const load = Array<number>(BROKERS).fill(0);
        const startedOnce = new Set<number>();
        const inFlight: number[] = [];
        let step = 0;
        for (;;) {
          const got = picker.start();
          const want = naiveStart(queue, refStarted, refLoad, refFlight, bounds);
          assert.deepEqual(got, want);
          for (const pos of got) {
            assert.ok(!startedOnce.has(pos), `position ${pos} started twice`);
            startedOnce.add(pos);
            inFlight.push(pos);
            for (const b of queue[pos]) load[b]++;
          }
          // Bounds hold.
          if (bounds.cluster !== null) assert.ok(inFlight.length <= bounds.cluster);
          if (bounds.perBroker !== null) for (const l of load) assert.ok(l <= bounds.perBroker);
          // Maximal: nothing queued still fits.
          for (let i = 0; i < queue.length; i++)
            if (!startedOnce.has(i)) assert.ok(!fits(queue[i], load, inFlight.length, bounds), `position ${i} fits but was not started`);
          if (inFlight.length === 0) break;
          // One move in flight completes (chosen by the random choices).
          const k = (choices[step++ % Math.max(1, choices.length)] ?? 0) % inFlight.length;
          const [pos] = inFlight.splice(k, 1);
          picker.finish(pos);
          refFlight.n--;
          for (const b of queue[pos]) {
            load[b]--;
            refLoad[b]--;
          }
        }
        assert.equal(startedOnce.size, queue.length, 'every queued move started');
      }),
      { numRuns: 300 },
    );
  });

  it('a later move overtakes an earlier one only when the earlier one does not fit', () => {
    // 0 -> 1 (small) and 0 -> 2 (large) share broker 0; 3 -> 4 is independent.
    const p = (partition: number, current: number[], target: number[], size: number): PacedPartition => ({
      topic: 't',
      partition,
      currentReplicas: current,
      leader: current[0],
      targetReplicas: target,
      sizeBytes: size,
      state: 'queued',
    });
    const partitions = [p(0, [0], [2], 300), p(1, [0], [1], 100), p(2, [3], [4], 200)];
    const b = { perBroker: 1, cluster: null };
    assert.deepEqual(
      nextToStart(partitions, b, 'size-asc').map((x) => x.partition),
      [1, 2],
    );
    assert.deepEqual(
      nextToStart(partitions, b, 'size-desc').map((x) => x.partition),
      [0, 2],
    );
    assert.deepEqual(
      nextToStart(partitions, b, 'as-given').map((x) => x.partition),
      [0, 2],
    );
    // The cluster bound stops at the first moves in order.
    assert.deepEqual(
      nextToStart(partitions, { perBroker: null, cluster: 2 }, 'size-asc').map((x) => x.partition),
      [1, 2],
    );
  });

  it('counts moves already moving against the bounds; a broker takes part as destination or as leader', () => {
    const moving: PacedPartition = {
      topic: 't',
      partition: 9,
      currentReplicas: [0, 1],
      leader: 1,
      targetReplicas: [0, 2],
      sizeBytes: 5,
      state: 'moving',
    };
    assert.deepEqual(moveBrokers(moving), [1, 2]); // leader 1 sends, 2 receives; 0 only stays
    const queued = (partition: number, current: number[], leader: number, target: number[]): PacedPartition => ({
      topic: 't',
      partition,
      currentReplicas: current,
      leader,
      targetReplicas: target,
      sizeBytes: 1,
      state: 'queued',
    });
    const partitions = [moving, queued(0, [0, 3], 0, [0, 4]), queued(1, [3, 1], 3, [3, 5]), queued(2, [4, 5], 4, [4, 2])];
    // perBroker 1: 1 and 2 are busy; p0 uses 0,4 -> starts; p1 uses 3,5 -> starts; p2 uses 4(now busy),2(busy).
    assert.deepEqual(
      nextToStart(partitions, { perBroker: 1, cluster: null }, 'as-given').map((x) => x.partition),
      [0, 1],
    );
    // cluster 2: one slot left after the moving one.
    assert.deepEqual(
      nextToStart(partitions, { perBroker: null, cluster: 2 }, 'as-given').map((x) => x.partition),
      [0],
    );
  });

  it('bounds must be integers ≥ 1 or null', () => {
    assert.equal(checkBounds({ perBroker: 1, cluster: null }), null);
    assert.match(checkBounds({ perBroker: 0, cluster: null })!, /perBroker/);
    assert.match(checkBounds({ perBroker: null, cluster: 1.5 })!, /cluster/);
  });
});

describe('pacing: schedule, duration, ETA', () => {
  const MiB = 1024 * 1024;

  it('every queued partition is in exactly one wave; peak in flight within the bounds', () => {
    fc.assert(
      fc.property(arbPartitions, arbBounds, arbOrder, (small, bounds, order) => {
        // KiB rather than bytes: the model ends a copy with at most 1e-9 x rate bytes left (float
        // error), which on copies of a few bytes is a visible share of the time.
        const partitions = small.map((p) => ({ ...p, sizeBytes: p.sizeBytes * 1024 }));
        const s = planWaves(partitions, bounds, order, { throttle: 10 * MiB });
        const seen = s.waves.flatMap((w) => w.partitions.map((p) => `${p.topic}-${p.partition}`));
        assert.equal(new Set(seen).size, seen.length);
        assert.equal(seen.length, partitions.length);
        if (bounds.cluster !== null) assert.ok(s.peakInFlight <= bounds.cluster);
        assert.equal(s.waveCount, s.waves.length);
        for (let i = 1; i < s.waves.length; i++) assert.ok(s.waves[i].startSeconds! >= s.waves[i - 1].startSeconds!);
        // Never faster than the busiest broker allows.
        const inB = new Map<number, number>();
        const outB = new Map<number, number>();
        for (const p of partitions) {
          const dests = p.targetReplicas.filter((b) => !p.currentReplicas.includes(b));
          const src = p.leader ?? p.currentReplicas[0];
          for (const d of dests) {
            inB.set(d, (inB.get(d) ?? 0) + p.sizeBytes);
            outB.set(src, (outB.get(src) ?? 0) + p.sizeBytes);
          }
        }
        const busiest = Math.max(0, ...inB.values(), ...outB.values());
        // Each copy may end up to 1e-9 x rate bytes early, at a rate of at least rate / copies.
        const copies = partitions.reduce((n, p) => n + p.targetReplicas.filter((b) => !p.currentReplicas.includes(b)).length, 0);
        assert.ok(s.estimatedSeconds! >= busiest / (10 * MiB) - 1e-9 * copies * copies, `${s.estimatedSeconds} < ${busiest / (10 * MiB)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('one move: size ÷ rate; two moves into one broker share its rate; the bandwidth caps the throttle', () => {
    const p = (partition: number, from: number, to: number, size: number): PacedPartition => ({
      topic: 't',
      partition,
      currentReplicas: [from],
      leader: from,
      targetReplicas: [to],
      sizeBytes: size,
      state: 'queued',
    });
    assert.equal(
      planWaves([p(0, 0, 1, 100 * MiB)], { perBroker: null, cluster: null }, 'size-asc', { throttle: 10 * MiB }).estimatedSeconds,
      10,
    );
    assert.equal(
      planWaves([p(0, 0, 1, 100 * MiB)], { perBroker: null, cluster: null }, 'size-asc', { throttle: 100 * MiB, bandwidth: 50 * MiB })
        .estimatedSeconds,
      2,
    );
    // Two 100 MiB copies into broker 2 from 0 and 1: 20 s either way (shared, or one after the other).
    const two = [p(0, 0, 2, 100 * MiB), p(1, 1, 2, 100 * MiB)];
    assert.equal(planWaves(two, { perBroker: null, cluster: null }, 'size-asc', { throttle: 10 * MiB }).estimatedSeconds, 20);
    const paced = planWaves(two, { perBroker: 1, cluster: null }, 'size-asc', { throttle: 10 * MiB });
    assert.equal(paced.estimatedSeconds, 20);
    assert.deepEqual(
      paced.waves.map((w) => [w.startSeconds, w.partitions.map((x) => x.partition)]),
      [
        [0, [0]],
        [10, [1]],
      ],
    );
    // Without a rate: the waves, no seconds.
    const none = planWaves(two, { perBroker: 1, cluster: null }, 'size-asc', { throttle: null });
    assert.equal(none.estimatedSeconds, null);
    assert.equal(none.waveCount, 2);
    assert.equal(none.waves[1].startSeconds, null);
  });

  it('ETA counts the queue and the bytes done of what moves', () => {
    const p = (partition: number, state: 'queued' | 'moving' | 'completed', done = 0): PacedPartition => ({
      topic: 't',
      partition,
      currentReplicas: [0],
      leader: 0,
      targetReplicas: [1],
      sizeBytes: 100 * MiB,
      state,
      bytesDone: done,
    });
    const b = { perBroker: 1, cluster: null };
    const parts = [p(0, 'completed'), p(1, 'moving', 60 * MiB), p(2, 'queued'), p(3, 'queued')];
    assert.equal(pacedEtaSeconds(parts, b, 'size-asc', { throttle: 10 * MiB }), 4 + 10 + 10);
    // No rate: remaining bytes over the observed rate.
    assert.equal(pacedEtaSeconds(parts, b, 'size-asc', { throttle: null, observedBytesPerSecond: 12 * MiB }), 240 / 12);
    assert.equal(pacedEtaSeconds(parts, b, 'size-asc', { throttle: null }), null);
    assert.deepEqual(countStates(parts), { total: 4, queued: 2, moving: 1, completed: 1, failed: 0, cancelled: 0 });
  });

  it("a scale-out onto a new broker with perBroker 2 runs at the new broker's rate (model ratio ≈ 1)", () => {
    // 300 partitions on 0..4 each move one replica to broker 5: broker 5 receives everything.
    const parts: PacedPartition[] = [];
    let total = 0;
    for (let i = 0; i < 300; i++) {
      const current = [i % 5, (i + 1) % 5];
      const size = ((i * 7919) % 97) * MiB + MiB;
      total += size;
      parts.push({
        topic: 't',
        partition: i,
        currentReplicas: current,
        leader: current[0],
        targetReplicas: [current[0], 5],
        sizeBytes: size,
        state: 'queued',
      });
    }
    const s = planWaves(parts, { perBroker: 2, cluster: null }, 'size-asc', { throttle: 10 * MiB });
    const limit = total / (10 * MiB);
    assert.ok(Math.abs(s.estimatedSeconds! / limit - 1) < 1e-6, `${s.estimatedSeconds} vs ${limit}`);
    assert.equal(s.peakInFlight, 2);
  });

  it('schedules 20k moves in reasonable time (near-linear picker)', () => {
    const parts: PacedPartition[] = [];
    for (let i = 0; i < 20_000; i++) {
      const a = i % 12;
      parts.push({
        topic: `t${i % 10}`,
        partition: i,
        currentReplicas: [a, (a + 1) % 12],
        leader: a,
        targetReplicas: [a, (a + 2) % 12],
        sizeBytes: (i * 31) % 1000,
        state: 'queued',
      });
    }
    const s = planWaves(parts, { perBroker: 5, cluster: null }, 'size-asc', { throttle: 1000, maxWaves: 10 });
    assert.equal(s.waves.length, 10);
    assert.ok(s.waveCount > 10);
    assert.ok(s.peakInFlight <= 30);
  });
});
