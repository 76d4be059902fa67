import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createTopicCost, deleteTopicCost, partitionIncreaseCost, settleCharge } from '../../src/domain/mutation-cost.js';
import { createBucketForRate, tryRecordStrict } from '../../src/domain/token-bucket.js';

describe('mutation costs (partitions, KIP-599)', () => {
  it('creations cost their partitions (assignments win; broker default estimated as 1)', () => {
    assert.equal(createTopicCost({ partitions: 30 }), 30);
    assert.equal(createTopicCost({ assignments: [[0], [1], [2]] }), 3);
    assert.equal(createTopicCost({}), 1);
  });
  it('partition increases cost the partitions added; deletions the partitions removed; unknown topics nothing', () => {
    assert.equal(partitionIncreaseCost(1, 31), 30);
    assert.equal(partitionIncreaseCost(5, 3), 0);
    assert.equal(partitionIncreaseCost(undefined, 3), 0);
    assert.equal(deleteTopicCost(12), 12);
    assert.equal(deleteTopicCost(undefined), 0);
  });
});

describe('settleCharge', () => {
  it('refunds (never above the burst) and charges more without refusing', () => {
    const full = createBucketForRate(2, 0); // burst 22
    const charged = tryRecordStrict(full, 30, 0).bucket; // -8
    assert.equal(settleCharge(charged, -30, 0).tokens, 22);
    assert.equal(settleCharge(charged, -100, 0).tokens, 22);
    assert.equal(settleCharge(charged, 4, 0).tokens, -12);
    // Refills to now first: 1 s at 2/s.
    assert.equal(settleCharge(charged, 0, 1000).tokens, -6);
    assert.throws(() => settleCharge(charged, Number.NaN, 0), RangeError);
  });
});
