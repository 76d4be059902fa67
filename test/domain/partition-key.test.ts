import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { MAX_INTERNED, internedCount, partitionKey, replicaEntryKey, resetInterned } from '../../src/domain/partition-key.js';

it('is `topic:partition` for any topic and partition, interned or not', () => {
  fc.assert(
    fc.property(fc.string(), fc.oneof(fc.nat(2_000_000), fc.integer(), fc.double()), (topic, partition) => {
      assert.equal(partitionKey(topic, partition), `${topic}:${partition}`);
      assert.equal(partitionKey(topic, partition), `${topic}:${partition}`); // second call: from the table when kept
    }),
  );
});

it('keeps only dense non-negative integer partitions, and never more than MAX_INTERNED keys', () => {
  resetInterned();
  partitionKey('t', -1);
  partitionKey('t', 1.5);
  partitionKey('t', 2 ** 30);
  assert.equal(internedCount(), 0);
  partitionKey('t', 3);
  partitionKey('t', 3);
  assert.equal(internedCount(), 1);
  // Filling the table past its bound starts it again: the count never exceeds the bound.
  for (let i = 0; i < MAX_INTERNED + 10; i++) partitionKey(`topic-${i % 300}`, Math.floor(i / 300));
  assert.ok(internedCount() <= MAX_INTERNED, `count ${internedCount()}`);
  assert.ok(internedCount() > 0);
  assert.equal(partitionKey('topic-7', 12), 'topic-7:12');
  resetInterned();
});

it('replica entries are `partition:broker` for any pair, the same string object while kept', () => {
  fc.assert(
    fc.property(fc.oneof(fc.nat(2_000_000), fc.integer(), fc.double()), fc.oneof(fc.nat(5000), fc.integer()), (partition, broker) => {
      assert.equal(replicaEntryKey(partition, broker), `${partition}:${broker}`);
      assert.equal(replicaEntryKey(partition, broker), `${partition}:${broker}`);
    }),
  );
  resetInterned();
  // Kept: the same object, so 400,000 entries of a large throttle demand are ~12,000 strings.
  const a = replicaEntryKey(7, 1001);
  assert.equal(internedCount(), 2); // broker 1001's table and the entry
  assert.ok(Object.is(a, replicaEntryKey(7, 1001)));
  // Many brokers from bad input stay bounded too.
  for (let b = 0; b < MAX_INTERNED + 10; b++) replicaEntryKey(-1, b);
  assert.ok(internedCount() <= MAX_INTERNED, `count ${internedCount()}`);
  resetInterned();
});
