// validateReassignment looks a topic's partitions up in Metadata's list by index when the list
// is in id order (index k holds partition k), and through a Map otherwise. The answer must not
// depend on which: the same partitions listed in another order (or with gaps) validate alike.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { PartitionReplicas } from '../../../src/domain/reassignment/plan-types.js';
import { validateReassignment } from '../../../src/domain/reassignment/plan.js';

const BROKERS = [0, 1, 2, 3];

describe('validateReassignment: partition lookup', () => {
  it('answers the same whatever order Metadata lists the partitions in', () => {
    const replicas = fc.uniqueArray(fc.constantFrom(...BROKERS), { minLength: 1, maxLength: 3 });
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }), // partitions of topic t
        fc.array(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }), // ids left out (gaps)
        fc.array(fc.record({ topic: fc.constantFrom('t', 'u'), partition: fc.integer({ min: -1, max: 9 }), replicas }), {
          minLength: 1,
          maxLength: 12,
        }),
        fc.integer(),
        (count, gaps, partitions, seed) => {
          const listed: PartitionReplicas[] = [];
          for (let k = 0; k < count; k++)
            if (!gaps.includes(k)) listed.push({ partition: k, replicas: [k % 4, (k + 1) % 4], leader: k % 4 });
          // Shuffled by the seed (a deterministic permutation).
          const shuffled = listed
            .map((p, i) => ({ p, key: Math.imul(i + 1, seed | 1) >>> 0 }))
            .sort((a, b) => a.key - b.key)
            .map((x) => x.p);
          const cluster = (list: PartitionReplicas[]) => ({ liveBrokers: BROKERS, topics: [{ name: 't', partitions: list }], ongoing: [] });
          const inOrder = validateReassignment(cluster(listed), { partitions });
          assert.deepEqual(validateReassignment(cluster(shuffled), { partitions }), inOrder);
          assert.deepEqual(validateReassignment(cluster([...listed].reverse()), { partitions }), inOrder);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('a partition listed twice counts once, the last one listed wins (as a Map of them)', () => {
    const cluster = {
      liveBrokers: BROKERS,
      topics: [
        {
          name: 't',
          partitions: [
            { partition: 1, replicas: [0, 1] },
            { partition: 0, replicas: [0, 1] },
            { partition: 1, replicas: [2, 3] },
          ],
        },
      ],
      ongoing: [],
    };
    const r = validateReassignment(cluster, { partitions: [{ topic: 't', partition: 1, replicas: [2, 3, 0] }] });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.match(r.errors.map((e) => e.message).join('\n'), /every one of its 2 partitions/);
  });

  it("an unknown partition names the topic's partition count, dense list or not", () => {
    for (const partitions of [
      [
        { partition: 0, replicas: [0] },
        { partition: 1, replicas: [1] },
      ],
      [
        { partition: 1, replicas: [1] },
        { partition: 0, replicas: [0] },
      ],
    ]) {
      const r = validateReassignment(
        { liveBrokers: BROKERS, topics: [{ name: 't', partitions }], ongoing: [] },
        {
          partitions: [
            { topic: 't', partition: 2, replicas: [0] },
            { topic: 't', partition: 1.5, replicas: [0] },
          ],
        },
      );
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.deepEqual(
        r.errors.map((e) => e.code),
        ['UNKNOWN_PARTITION', 'UNKNOWN_PARTITION'],
      );
      assert.match(r.errors[0].message, /has 2 partition\(s\)/);
    }
  });
});
