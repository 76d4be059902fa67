import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { computeProgress, retainSamples, type ProgressSample, type ReplicaSample } from '../../../src/domain/reassignment/index.js';

const r = (partition: number, broker: number, bytes: number | null, leaderBytes: number | null): ReplicaSample => ({
  topic: 't',
  partition,
  broker,
  bytes,
  leaderBytes,
});
const sample = (timeMs: number, ...replicas: ReplicaSample[]): ProgressSample => ({ timeMs, replicas });

describe('computeProgress: bytes and percent', () => {
  it('per replica and totals', () => {
    const p = computeProgress([sample(0, r(0, 3, 250, 1000), r(1, 4, null, 3000))]);
    assert.deepEqual(p.replicas, [
      { topic: 't', partition: 0, broker: 3, bytesCopied: 250, bytesRemaining: 750, bytesTotal: 1000, percent: 25 },
      { topic: 't', partition: 1, broker: 4, bytesCopied: 0, bytesRemaining: 3000, bytesTotal: 3000, percent: 0 },
    ]);
    assert.deepEqual([p.bytesTotal, p.bytesCopied, p.bytesRemaining, p.percent], [4000, 250, 3750, 6.25]);
  });

  it('percent is floored (100 only when done) and capped: a follower ahead of the leader shows 100', () => {
    assert.equal(computeProgress([sample(0, r(0, 3, 999_999, 1_000_000))]).percent, 99.99);
    const p = computeProgress([sample(0, r(0, 3, 1200, 1000))]);
    assert.deepEqual([p.replicas[0].bytesCopied, p.replicas[0].bytesRemaining, p.percent], [1000, 0, 100]);
  });

  it('empty partitions and no samples are 100% with nothing remaining', () => {
    assert.equal(computeProgress([sample(0, r(0, 3, 0, 0))]).percent, 100);
    const none = computeProgress([]);
    assert.deepEqual(
      [none.percent, none.bytesRemaining, none.etaSeconds, none.stalled, none.lastProgressAtMs],
      [100, 0, null, false, null],
    );
  });

  it('a replica whose leader size is unknown is left out of the totals and counted', () => {
    const p = computeProgress([sample(0, r(0, 3, 10, null), r(1, 3, 5, 10))]);
    assert.deepEqual(p.replicas[0].percent, null);
    assert.deepEqual([p.bytesTotal, p.bytesCopied, p.unknownReplicas], [10, 5, 1]);
  });
});

describe('computeProgress: rate and ETA', () => {
  const samples = [
    sample(0, r(0, 3, 0, 10_000)),
    sample(1_000, r(0, 3, 1_000, 10_000)),
    sample(2_000, r(0, 3, 2_000, 10_000)),
    sample(3_000, r(0, 3, 4_000, 10_000)),
  ];

  it('rate over the whole window; ETA = remaining / fall rate, rounded up', () => {
    const p = computeProgress(samples, { windowMs: 10_000 });
    assert.equal(p.bytesPerSecond, 4000 / 3);
    assert.equal(p.etaSeconds, Math.ceil(6000 / (4000 / 3)));
  });

  it('a sliding window only sees recent samples', () => {
    const p = computeProgress(samples, { windowMs: 1_000 });
    assert.equal(p.bytesPerSecond, 2000);
    assert.equal(p.etaSeconds, 3);
  });

  it('one sample: no rate, no ETA', () => {
    const p = computeProgress(samples.slice(0, 1));
    assert.deepEqual([p.bytesPerSecond, p.etaSeconds], [null, null]);
  });

  it('producers writing during the move: the copy speed counts copies, the ETA counts what is left', () => {
    const p = computeProgress([sample(0, r(0, 3, 0, 10_000)), sample(1_000, r(0, 3, 3_000, 12_000))], { windowMs: 5_000 });
    assert.equal(p.bytesPerSecond, 3000);
    assert.equal(p.etaSeconds, Math.ceil(9000 / 1000)); // remaining fell 10000 -> 9000
  });

  it('remaining not falling: ETA null, rate 0', () => {
    const p = computeProgress([sample(0, r(0, 3, 500, 1000)), sample(1_000, r(0, 3, 500, 1000))]);
    assert.deepEqual([p.bytesPerSecond, p.etaSeconds], [0, null]);
  });

  it('done: ETA 0', () => {
    assert.equal(computeProgress([sample(0, r(0, 3, 5, 10)), sample(1_000, r(0, 3, 10, 10))]).etaSeconds, 0);
  });

  it('a replica that finished and left the samples, or one that joined, is not a jump in the rate', () => {
    const p = computeProgress([sample(0, r(0, 3, 100, 1000), r(1, 3, 900, 1000)), sample(1_000, r(0, 3, 300, 1000), r(2, 4, 0, 50_000))], {
      windowMs: 5_000,
    });
    assert.equal(p.bytesPerSecond, 200);
  });
});

describe('computeProgress: stalled', () => {
  it('stalled when remaining has not fallen for stallAfterMs', () => {
    const samples = [
      sample(0, r(0, 3, 0, 1000)),
      sample(1_000, r(0, 3, 400, 1000)),
      sample(5_000, r(0, 3, 400, 1000)),
      sample(11_000, r(0, 3, 400, 1000)),
    ];
    const p = computeProgress(samples, { stallAfterMs: 10_000 });
    assert.equal(p.lastProgressAtMs, 1_000);
    assert.equal(p.stalled, true);
    assert.equal(computeProgress(samples.slice(0, 3), { stallAfterMs: 10_000 }).stalled, false);
    assert.equal(computeProgress(samples, { stallAfterMs: 10_001 }).stalled, false);
  });

  it('never progressing counts from the first sample', () => {
    const samples = [sample(0, r(0, 3, 0, 1000)), sample(60_000, r(0, 3, 0, 1000))];
    assert.equal(computeProgress(samples, { stallAfterMs: 60_000 }).stalled, true);
    assert.equal(computeProgress(samples, { stallAfterMs: 60_000 }).lastProgressAtMs, 0);
  });

  it('a finished replica leaving the samples is progress', () => {
    const samples = [sample(0, r(0, 3, 0, 1000), r(1, 3, 999, 1000)), sample(30_000, r(0, 3, 0, 1000))];
    const p = computeProgress(samples, { stallAfterMs: 10_000 });
    assert.equal(p.lastProgressAtMs, 30_000);
    assert.equal(p.stalled, false);
  });

  it('never stalled when nothing remains', () => {
    assert.equal(computeProgress([sample(0, r(0, 3, 10, 10)), sample(99_000, r(0, 3, 10, 10))], { stallAfterMs: 1_000 }).stalled, false);
  });

  it('a broker that stopped answering (sizes unknown) stalls, and its return is progress again', () => {
    const samples = [sample(0, r(0, 3, 100, 1000)), sample(1_000, r(0, 3, 200, null)), sample(20_000, r(0, 3, 200, null))];
    assert.equal(computeProgress(samples, { stallAfterMs: 10_000 }).stalled, true);
    samples.push(sample(21_000, r(0, 3, 300, 1000)));
    const p = computeProgress(samples, { stallAfterMs: 10_000 });
    assert.equal(p.stalled, false);
    assert.equal(p.lastProgressAtMs, 21_000);
  });
});

describe('retainSamples', () => {
  it('keeps the horizon plus the last sample before it', () => {
    const samples = [0, 10_000, 20_000, 30_000, 40_000].map((t) => sample(t, r(0, 3, t, 1e9)));
    const kept = retainSamples(samples, 40_000, { windowMs: 5_000, stallAfterMs: 15_000 });
    assert.deepEqual(
      kept.map((s) => s.timeMs),
      [20_000, 30_000, 40_000],
    );
    assert.deepEqual(retainSamples([], 0), []);
  });
});
