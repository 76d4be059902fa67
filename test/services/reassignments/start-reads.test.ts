// mergeHealth (src/services/reassignments/start-reads.ts): an unpaced start's health comes from
// its placement reads, one Metadata answer per chunk of topics; the answers become one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeHealth } from '../../../src/services/reassignments/start-reads.js';
import type { ReplicaHealth } from '../../../src/kafka/replica-health.js';

const troubled = (name: string, partition: number) => ({
  name,
  partitions: [{ partition, leader: -1, replicas: [1, 2], isr: [], offlineReplicas: [1, 2] }],
});

describe('mergeHealth', () => {
  it('one answer is itself', () => {
    const a: ReplicaHealth = { brokers: [1, 2], topics: [], partitions: 3, goneUnlisted: [] };
    assert.equal(mergeHealth([a]), a);
  });

  it('topics listed in turn, partitions summed, gone brokers united; a broker is live only if every answer lists it', () => {
    const a: ReplicaHealth = { brokers: [1, 2, 3], topics: [troubled('a', 0)], partitions: 10, goneUnlisted: [7] };
    const b: ReplicaHealth = { brokers: [3, 1], topics: [troubled('b', 4)], partitions: 5, goneUnlisted: [5, 7] };
    assert.deepEqual(mergeHealth([a, b]), {
      brokers: [1, 3],
      topics: [...a.topics, ...b.topics],
      partitions: 15,
      goneUnlisted: [5, 7],
    });
  });
});
