// The order pages of partitions are served in: (topic, partition), request order among repeats,
// computed in steps that yield on large inputs.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import { compareTopicPartitions, STEP_ITEMS, topicPartitionOrderSteps, type Steps } from '../../../src/domain/reassignment/index.js';

function drain<T>(steps: Steps<T>): { value: T; yields: number } {
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { value: r.value, yields };
    yields++;
  }
}

// Topics whose code-unit order differs from locale order, partitions whose decimal order differs from numeric.
const arbPartition = fc.record({ topic: fc.constantFrom('a', 'b', 'B', 'a-1', 'ä', 'orders'), partition: fc.constantFrom(0, 1, 2, 9, 10, 11, 100, 999) });

describe('topicPartitionOrderSteps', () => {
  it('orders indexes as a stable sort by compareTopicPartitions would', () => {
    fc.assert(
      fc.property(fc.array(arbPartition, { maxLength: 300 }), (partitions) => {
        const expected = partitions.map((_, i) => i).sort((i, j) => compareTopicPartitions(partitions[i]!, partitions[j]!) || i - j);
        assert.deepEqual([...drain(topicPartitionOrderSteps(partitions)).value], expected);
      }),
    );
  });

  it('yields while it works on many partitions, and not at all on few', () => {
    const many = Array.from({ length: 10 * STEP_ITEMS }, (_, i) => ({ topic: `t${i % 7}`, partition: Math.floor(i / 7) }));
    const { value, yields } = drain(topicPartitionOrderSteps(many));
    assert.ok(yields >= 10, `${yields} yields over ${many.length} partitions`);
    assert.equal(value.length, many.length);
    for (let k = 1; k < value.length; k++) assert.ok(compareTopicPartitions(many[value[k - 1]!]!, many[value[k]!]!) < 0);
    assert.equal(drain(topicPartitionOrderSteps(many.slice(0, 10))).yields, 0);
  });
});
