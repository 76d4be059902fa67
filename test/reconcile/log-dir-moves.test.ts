import assert from 'node:assert/strict';
import { it } from 'node:test';
import { hasLogDirMoves, logDirBrokers } from '../../src/reconcile/log-dir-moves.js';
import type { ReassignmentPartitionRecord, ReassignmentRecord } from '../../src/state/records.js';

const record = (partitions: ReassignmentPartitionRecord[]) => ({ id: 'r', partitions }) as unknown as ReassignmentRecord;
const part = (
  partition: number,
  logDirs?: string[],
  state: ReassignmentPartitionRecord['state'] = 'moving',
): ReassignmentPartitionRecord => ({
  topic: 't',
  partition,
  original: [1, 2],
  target: [3, 2],
  state,
  ...(logDirs && { logDirs }),
});

it('a record whose partitions name only "any" (or no dirs) has no dir moves and no log-dir throttle brokers', () => {
  const r = record([part(0), part(1, ['any', 'any'])]);
  assert.equal(hasLogDirMoves(r), false);
  assert.deepEqual(logDirBrokers(r), []);
});

it('one partition naming a dir is enough; the brokers are those of open partitions with a named dir', () => {
  const r = record([part(0, ['any', 'any']), part(1, ['any', '/data/b']), part(2, ['/data/a', 'any'], 'completed')]);
  assert.equal(hasLogDirMoves(r), true);
  assert.deepEqual(logDirBrokers(r), [2]);
  // Kept per record object: an equal-looking new record is looked at afresh.
  const none = record([part(1, ['any', 'any'])]);
  assert.equal(hasLogDirMoves(none), false);
  assert.equal(hasLogDirMoves(r), true);
});
