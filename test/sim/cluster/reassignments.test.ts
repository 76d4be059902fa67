// The pure reassignment maths against Kafka's own test vectors (PartitionReassignmentReplicasTest,
// PartitionReassignmentRevertTest), and the throttled-replicas list matcher.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { completedReassignment, reassignmentReplicas, revertedReassignment } from '../../../src/sim/cluster/reassignments.js';
import { listsReplica } from '../../../src/sim/cluster/replication.js';

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
});
