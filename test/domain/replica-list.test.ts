import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import {
  MAX_INTERNED_LISTS,
  internReplicaList,
  internReplicaListAt,
  internedListCount,
  resetInternedLists,
  sharedDifference,
} from '../../src/domain/replica-list.js';

it('gives a frozen list equal to the one asked for, shared by equal lists and not by different ones', () => {
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: -2, max: 20 }), { maxLength: 6 }),
      fc.array(fc.integer({ min: -2, max: 20 }), { maxLength: 6 }),
      (a, b) => {
        const ia = internReplicaList(a);
        const ib = internReplicaList([...b]);
        assert.deepEqual(ia, a);
        assert.deepEqual(ib, b);
        assert.ok(Object.isFrozen(ia));
        assert.equal(Object.is(ia, ib), a.length === b.length && a.every((x, i) => x === b[i]));
      },
    ),
  );
  resetInternedLists();
});

it("never freezes or keeps the caller's array, and a write to a shared list throws", () => {
  const mine = [1, 2, 3];
  const shared = internReplicaList(mine);
  assert.ok(!Object.isFrozen(mine));
  assert.notEqual(shared, mine);
  mine.push(4);
  assert.deepEqual(internReplicaList([1, 2, 3]), [1, 2, 3]);
  assert.throws(() => (shared as number[]).push(4), TypeError);
  resetInternedLists();
});

it('stays bounded: past MAX_INTERNED_LISTS it starts again, and lists stay correct', () => {
  resetInternedLists();
  for (let i = 0; i < MAX_INTERNED_LISTS; i++) internReplicaList([i, i + 1]);
  assert.ok(internedListCount() <= MAX_INTERNED_LISTS, `count ${internedListCount()}`);
  assert.deepEqual(internReplicaList([5, 6]), [5, 6]);
  resetInternedLists();
});

it('reads big-endian INT32 lists out of bytes as the same shared list internReplicaList gives (negative ids included)', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), { maxLength: 6 }), fc.nat(5), (list, offset) => {
      const bytes = Buffer.alloc(offset + list.length * 4);
      list.forEach((b, i) => bytes.writeInt32BE(b, offset + i * 4));
      const read = internReplicaListAt(bytes, offset, list.length);
      assert.deepEqual(read, list);
      assert.ok(Object.is(read, internReplicaList(list)));
      assert.ok(Object.isFrozen(read));
    }),
  );
  resetInternedLists();
});

it('sharedDifference is list - drop in list order, one shared list per pair', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.nat(12), { maxLength: 5 }), fc.uniqueArray(fc.nat(12), { maxLength: 5 }), (a, b) => {
      const ia = internReplicaList(a);
      const ib = internReplicaList(b);
      const d = sharedDifference(ia, ib);
      assert.deepEqual(
        d,
        a.filter((x) => !b.includes(x)),
      );
      assert.ok(Object.is(d, sharedDifference(internReplicaList([...a]), internReplicaList([...b]))));
      assert.ok(Object.isFrozen(d));
    }),
  );
  resetInternedLists();
});
