// placementFromHealth: the start's placement taken from the health interlock's read of every
// topic (issue 29), with a read by name only for what that read does not list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TopicPartitions } from '../../../src/kafka/kafka-admin.js';
import type { ReplicaHealth } from '../../../src/kafka/replica-health.js';
import { placementFromHealth } from '../../../src/services/reassignments/start-reads.js';
import type { ServiceContext } from '../../../src/services/reassignments/types.js';

const part = (partition: number, replicas: number[]) => ({ partition, leader: replicas[0], replicas, isr: replicas, offlineReplicas: [] });

function contextReading(byName: Record<string, TopicPartitions['partitions']>) {
  const asked: string[][] = [];
  const ctx = {
    d: {
      kafka: {
        describePartitions(topics: string[]) {
          asked.push([...topics]);
          return Promise.resolve(topics.filter((t) => byName[t]).map((name) => ({ name, partitions: byName[name] })));
        },
      },
    },
  } as unknown as ServiceContext;
  return { ctx, asked };
}

describe('placementFromHealth', () => {
  // A read with every partition of a, b and other (the topics the start asked complete).
  const health: ReplicaHealth = {
    brokers: [0, 1, 2],
    partitions: 4,
    goneUnlisted: [],
    topics: [
      { name: 'b', partitions: [part(1, [1, 2]), part(0, [0, 1])] },
      { name: 'a', partitions: [part(0, [2, 0])] },
      { name: 'other', partitions: [part(0, [0, 1])] },
    ],
  };

  it('takes the named topics from the read, sorted by name and partition, and asks Kafka nothing', async () => {
    const { ctx, asked } = contextReading({});
    const out = await placementFromHealth(ctx, ['b', 'a'], health);
    assert.deepEqual(
      out.map((t) => [t.name, t.partitions.map((p) => p.partition)]),
      [
        ['a', [0]],
        ['b', [0, 1]],
      ],
    );
    assert.deepEqual(asked, []);
    assert.deepEqual(
      health.topics[0].partitions.map((p) => p.partition),
      [1, 0],
      "the health read's own order is left as it was",
    );
  });

  it('reads by name a topic the read does not list (created since): unknown ones stay out, as placementOf answers', async () => {
    const { ctx, asked } = contextReading({ c: [part(0, [1, 0])] });
    const out = await placementFromHealth(ctx, ['c', 'a', 'nope'], health);
    assert.deepEqual(
      out.map((t) => t.name),
      ['a', 'c'],
    );
    assert.deepEqual(asked, [['c', 'nope']]);
  });
});
