import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { estimateMove, type MoveToEstimate } from '../../../src/domain/reassignment/index.js';

const MiB = 1024 * 1024;
const moves: MoveToEstimate[] = [
  // 0 leads; 3 and 4 receive t-0 (100 MiB each)
  { topic: 't', partition: 0, currentReplicas: [0, 1], adding: [3, 4], leader: 0 },
  // leader unknown: the preferred (first current) replica 1 is the source; 3 receives 50 MiB
  { topic: 't', partition: 1, currentReplicas: [1, 2], adding: [3], leader: null },
  // reorder: nothing to copy
  { topic: 'u', partition: 0, currentReplicas: [0, 1], adding: [], leader: 0 },
];
const sizes = { t: { 0: 100 * MiB, 1: 50 * MiB }, u: { 0: 999 * MiB } };

describe('estimateMove', () => {
  it('bytes per destination (in) and per leader (out), total', () => {
    const e = estimateMove(moves, sizes, { throttle: null });
    assert.equal(e.totalBytes, 250 * MiB);
    assert.deepEqual(e.brokers, [
      { broker: 0, bytesIn: 0, bytesOut: 200 * MiB },
      { broker: 1, bytesIn: 0, bytesOut: 50 * MiB },
      { broker: 3, bytesIn: 150 * MiB, bytesOut: 0 },
      { broker: 4, bytesIn: 100 * MiB, bytesOut: 0 },
    ]);
    assert.equal(e.bottleneckBroker, 0);
    assert.deepEqual(e.unknownSizes, []);
  });

  it('duration at a throttle = the busiest broker / rate', () => {
    const e = estimateMove(moves, sizes, { throttle: 10 * MiB });
    assert.equal(e.bytesPerSecond, 10 * MiB);
    assert.equal(e.estimatedSeconds, 20); // broker 0 sends 200 MiB at 10 MiB/s
  });

  it('no throttle: null without a bandwidth, else the bandwidth; the lower of both otherwise', () => {
    assert.equal(estimateMove(moves, sizes, { throttle: null }).estimatedSeconds, null);
    assert.equal(estimateMove(moves, sizes, { throttle: null, bandwidth: 100 * MiB }).estimatedSeconds, 2);
    assert.equal(estimateMove(moves, sizes, { throttle: 50 * MiB, bandwidth: 100 * MiB }).estimatedSeconds, 4);
    assert.equal(estimateMove(moves, sizes, { throttle: 50 * MiB, bandwidth: 25 * MiB }).estimatedSeconds, 8);
  });

  it('nothing to copy: 0 seconds, no bottleneck', () => {
    const e = estimateMove([moves[2]], sizes, { throttle: null });
    assert.deepEqual([e.totalBytes, e.estimatedSeconds, e.bottleneckBroker, e.brokers.length], [0, 0, null, 0]);
  });

  it('unknown sizes count as 0 and are listed', () => {
    const e = estimateMove(moves, { t: { 0: 100 * MiB } }, { throttle: MiB });
    assert.deepEqual(e.unknownSizes, [{ topic: 't', partition: 1 }]);
    assert.equal(e.totalBytes, 200 * MiB);
    assert.equal(e.estimatedSeconds, 200);
  });

  it('rejects negative sizes', () => {
    assert.throws(() => estimateMove(moves, { t: { 0: -1 } }, { throttle: null }), RangeError);
  });
});
