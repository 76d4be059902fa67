// The pure reassignment maths against Kafka's own test vectors (PartitionReassignmentReplicasTest,
// PartitionReassignmentRevertTest), and the throttled-replicas list matcher.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completedReassignment, reassignmentReplicas, revertedReassignment } from '../../../src/sim/cluster/reassignments.js';
import { listsReplica } from '../../../src/sim/cluster/throttled-replicas.js';

test('reassignmentReplicas: target ++ sorted removing; adding and removing sorted', () => {
  assert.deepEqual(reassignmentReplicas([3, 2, 1], [3, 2, 1]), { replicas: [3, 2, 1], adding: [], removing: [] });
  assert.deepEqual(reassignmentReplicas([3, 2, 1], [3, 6, 2, 1, 5]), { replicas: [3, 6, 2, 1, 5], adding: [5, 6], removing: [] });
  assert.deepEqual(reassignmentReplicas([3, 2, 1, 0], [3, 1]), { replicas: [3, 1, 0, 2], adding: [], removing: [0, 2] });
  assert.deepEqual(reassignmentReplicas([3, 2, 1, 0], [7, 3, 1, 9]), { replicas: [7, 3, 1, 9, 0, 2], adding: [7, 9], removing: [0, 2] });
  assert.deepEqual(reassignmentReplicas([3, 2, 1, 0], [0, 1, 3, 2]), { replicas: [0, 1, 3, 2], adding: [], removing: [] });
});

test('completedReassignment: only once every remaining replica is in the ISR', () => {
  const move = reassignmentReplicas([0, 1, 2], [3, 4, 5]);
  assert.equal(completedReassignment(move, [0, 1, 2, 3, 4]), null);
  assert.deepEqual(completedReassignment(move, [0, 1, 2, 3, 4, 5]), { replicas: [3, 4, 5], isr: [3, 4, 5] });
  const some = reassignmentReplicas([0, 1, 2], [0, 1, 3]);
  assert.deepEqual(completedReassignment(some, [0, 1, 2, 3]), { replicas: [0, 1, 3], isr: [0, 1, 3] });
  assert.equal(completedReassignment(some, [3]), null);
  assert.equal(completedReassignment({ replicas: [0, 1, 2], adding: [], removing: [] }, [0, 1, 2]), null, 'nothing to complete');
});

test('revertedReassignment: drop adding, keep removing; an ISR of only adding replicas is unclean', () => {
  assert.deepEqual(revertedReassignment([3, 2, 1], [3, 2], []), { replicas: [3, 2, 1], isr: [3, 2], unclean: false });
  assert.deepEqual(revertedReassignment([3, 2, 1], [3, 2], [3]), { replicas: [2, 1], isr: [2], unclean: false });
  assert.deepEqual(revertedReassignment([3, 2, 1], [3], [3]), { replicas: [2, 1], isr: [2], unclean: true });
});

test('listsReplica: `*`, partition:broker pairs with spaces, empty and unset', () => {
  assert.equal(listsReplica('*', 7, 3), true);
  assert.equal(listsReplica('0:1, 10:3 ,2:3', 10, 3), true);
  assert.equal(listsReplica('0:1,10:3', 1, 3), false, '10:3 is not 1:3 nor 0:3');
  assert.equal(listsReplica('0:1,10:3', 0, 3), false);
  assert.equal(listsReplica('', 0, 0), false);
  assert.equal(listsReplica(null, 0, 0), false);
  // Read as numbers, as Kafka reads them; tabs and spaces around either number.
  assert.equal(listsReplica('007:02', 7, 2), true);
  assert.equal(listsReplica(' 5 :\t9 ', 5, 9), true);
  assert.equal(listsReplica('5:9', 5, 90), false);
  assert.equal(listsReplica('5:9', 59, 0), false);
  // Beyond the numeric keys (a broker id of 2^21 and more): still found, by text.
  assert.equal(listsReplica('3:3000000,4:1', 3, 3_000_000), true);
  assert.equal(listsReplica('3:3000000,4:1', 4, 1), true);
  assert.equal(listsReplica('3:3000000', 3, 3), false);
  assert.equal(listsReplica('2147483647:0', 2147483647, 0), true);
});

test('listsReplica agrees with the pairs as a set of (partition, broker) numbers', () => {
  // Deterministic pseudo-random lists: the lookup against a set of the pairs it was built from.
  let seed = 12345;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let round = 0; round < 20; round++) {
    const pairs = new Set<string>();
    const text: string[] = [];
    for (let k = 0; k < 40; k++) {
      const p = next(60);
      const b = next(3) === 0 ? 2 ** 21 + next(5) : next(12);
      pairs.add(`${p}:${b}`);
      text.push(`${' '.repeat(next(2))}${p}:${b}`);
    }
    const value = text.join(',');
    for (let p = 0; p < 60; p++)
      for (const b of [0, 1, 5, 11, 2 ** 21, 2 ** 21 + 3])
        assert.equal(listsReplica(value, p, b), pairs.has(`${p}:${b}`), `${value} ${p}:${b}`);
  }
});
