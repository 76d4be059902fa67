// replicaListOwnership (GET /throttles): the linear merge walk and its steps give what the
// former Set-filter-sort gave, for sorted and unsorted values and ledger lists alike, and a long
// list is split into steps.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';

import {
  ALL_REPLICAS,
  STEP_ITEMS,
  formatThrottledReplicas,
  parseThrottledReplicas,
  replicaListOwnership,
  replicaListOwnershipSteps,
  type ReplicaListOwnership,
  type ReplicaListOwnershipView,
} from '../../../src/domain/reassignment/index.js';

/** The implementation before the merge walk, verbatim: the answers must not change. */
function reference(current: string | null, owned: ReplicaListOwnership | undefined): ReplicaListOwnershipView {
  const parsed = parseThrottledReplicas(current);
  if (!parsed) return { all: null, gateway: [], external: [], owner: 'external' };
  if (parsed.all) {
    const by = owned?.added.includes(ALL_REPLICAS) ? 'gateway' : 'external';
    return { all: by, gateway: [], external: [], owner: by };
  }
  const ours = new Set(owned?.added ?? []);
  const gateway = parsed.entries.filter((e) => ours.has(e)).sort();
  const external = parsed.entries.filter((e) => !ours.has(e)).sort();
  const owner = gateway.length === 0 ? (external.length === 0 ? null : 'external') : external.length === 0 ? 'gateway' : 'mixed';
  return { all: null, gateway, external, owner };
}

/** Runs the steps by hand: the answer and how many times it yielded. */
function stepped(current: string | null, owned: ReplicaListOwnership | undefined): { view: ReplicaListOwnershipView; yields: number } {
  const steps = replicaListOwnershipSteps(current, owned);
  let yields = 0;
  for (;;) {
    const r = steps.next();
    if (r.done) return { view: r.value, yields };
    yields++;
  }
}

// Partitions 0-30 and brokers 0-12: '10:2' sorts before '7:1' as strings, not as numbers.
const entry = fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 12 })).map(([p, b]) => `${p}:${b}`);

/** A config value as anyone may have written it: sorted (the gateway's), in any order, padded, with duplicates, `*`, invalid, empty, absent. */
const value = fc.oneof(
  fc.array(entry, { maxLength: 40 }).map((es) => formatThrottledReplicas(es)),
  fc.array(entry, { maxLength: 40 }).map((es) => es.join(',')),
  fc.array(entry, { maxLength: 20 }).map((es) => es.map((e) => ` 0${e} `).join(',')),
  fc.array(entry, { maxLength: 20 }).map((es) => [...es, ...es].join(',')),
  fc.constantFrom<string | null>('*', 'x:1', '', null),
);

/** The ledger's added entries: sorted (as kept), unsorted, with duplicates, with `*`, or none. */
const owned = fc.oneof(
  fc.constant(undefined),
  fc.array(entry, { maxLength: 40 }).map((es): ReplicaListOwnership => ({ prior: null, added: [...new Set(es)].sort() })),
  fc.array(entry, { maxLength: 40 }).map((es): ReplicaListOwnership => ({ prior: '1:1', added: es })),
  fc
    .array(entry, { maxLength: 10 })
    .map((es): ReplicaListOwnership => ({ prior: null, added: [ALL_REPLICAS, ...[...new Set(es)].sort()] })),
);

describe('replicaListOwnership', () => {
  it('answers what the Set-filter-sort answered, the same JSON, in steps or in one go, memoised or not', () => {
    fc.assert(
      fc.property(value, owned, (current, own) => {
        const want = reference(current, own);
        const got = replicaListOwnership(current, own);
        assert.deepEqual(got, want);
        assert.equal(JSON.stringify(got), JSON.stringify(want));
        // Again (memoised for long values), and with an equal ledger entry that is another object.
        assert.deepEqual(replicaListOwnership(current, own), want);
        assert.deepEqual(stepped(current, own && { ...own, added: [...own.added] }).view, want);
      }),
      { numRuns: 2000 },
    );
  });

  it('splits a long list into steps of STEP_ITEMS entries, with the same answer', () => {
    const n = 5 * STEP_ITEMS + 17;
    const entries = Array.from({ length: n }, (_, i) => `${Math.floor(i / 3)}:${i % 3}`);
    const current = formatThrottledReplicas(entries);
    // Every other entry is the gateway's; one it added is not in the value any more.
    const own: ReplicaListOwnership = { prior: null, added: [...entries.filter((_, i) => i % 2 === 0), '99999:0'].sort() };
    const { view, yields } = stepped(current, own);
    assert.ok(yields >= Math.floor(n / STEP_ITEMS), `${yields} yields over ${n} entries`);
    assert.deepEqual(view, reference(current, own));
    assert.equal(view.owner, 'mixed');
    // An unsorted value of the same entries, and an unsorted ledger list: the same answer, in steps too.
    const shuffled = [...entries].reverse().join(',');
    const unsortedOwn = { prior: null, added: [...own.added].reverse() };
    const other = stepped(shuffled, unsortedOwn);
    assert.ok(other.yields >= Math.floor(n / STEP_ITEMS));
    assert.deepEqual(other.view, view);
  });

  it('memoises per parsed value and ledger entry object; answers are frozen', () => {
    const current = formatThrottledReplicas(Array.from({ length: 100 }, (_, i) => `${i}:1`));
    const own: ReplicaListOwnership = { prior: null, added: ['1:1', '2:1'] };
    const first = replicaListOwnership(current, own);
    assert.equal(replicaListOwnership(current, own), first);
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first.gateway) && Object.isFrozen(first.external));
    // A changed ledger entry is a new object: computed again.
    const changed = replicaListOwnership(current, { prior: null, added: ['1:1', '2:1', '3:1'] });
    assert.notEqual(changed, first);
    assert.deepEqual(changed.gateway, ['1:1', '2:1', '3:1']);
    assert.deepEqual(first.gateway, ['1:1', '2:1']);
  });
});
