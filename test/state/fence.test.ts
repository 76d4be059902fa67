// Fencing and leases on the state topic (src/state/fence.ts, src/state/claims.ts): a holder
// that outlived its lease (paused, or stuck in a slow Kafka request) cannot undo what the next
// holder wrote (issue 28, L1), and leases never compare wall clocks of different machines (K1).
// Against the in-memory log of test/state/memory-log.ts: offsets, batches and compaction as Kafka's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FencedWriteError } from '../../src/state/fence.js';
import { RECORD_VERSION, type ReassignmentRecord } from '../../src/state/records.js';
import { StateStore, type StateEvent } from '../../src/state/store.js';
import { MemoryLog } from './memory-log.js';

function record(id: string, state: ReassignmentRecord['state']): ReassignmentRecord {
  return {
    kind: 'reassignment',
    v: RECORD_VERSION,
    id,
    state,
    partitions: [{ topic: 't', partition: 0, original: [0], target: [1], state: state === 'running' ? 'moving' : 'cancelled' }],
    concurrency: null,
    order: 'as-given',
    paused: false,
    throttle: null,
    autoRemoveThrottle: true,
    throttleDemand: null,
    owner: 'i',
    requestedBy: null,
    createdAt: 1,
    startDeadline: 2,
    updatedAt: 1,
  };
}

const LEASE = 5000;
const claimOpts = (owner: string) => ({ purpose: 'pacing r', owner, ttlMs: LEASE });

/** Two instances on one log, each with its own monotonic clock and wall clock (skewed on purpose). */
function twoInstances() {
  const log = new MemoryLog();
  const clocks = { a: 0, b: 0 };
  const events: { a: StateEvent[]; b: StateEvent[] } = { a: [], b: [] };
  // a's wall clock is 20 s ahead of b's: nothing below may depend on it (K1).
  const a = new StateStore(log, { now: () => 1_700_000_020_000, monotonic: () => clocks.a, onEvent: (e) => events.a.push(e) });
  const b = new StateStore(log, { now: () => 1_700_000_000_000, monotonic: () => clocks.b, onEvent: (e) => events.b.push(e) });
  return { log, a, b, clocks, events };
}

describe('fencing: a holder that outlived its lease changes nothing (L1)', () => {
  it('a pacer paused past its lease writes `running` after a DELETE wrote `cancelled`: every reader keeps `cancelled`', async () => {
    const { log, a, b, clocks, events } = twoInstances();
    await a.write([record('r', 'running')]);
    const pacer = await a.claim(['pacing/r'], claimOpts('a'));
    assert.ok(pacer.granted);
    // a is paused (its clock stands still: its own lease check passes); b sees the claim for a whole lease.
    await b.refresh();
    clocks.b += LEASE;
    const del = await b.claim(['pacing/r'], claimOpts('b'));
    assert.ok(del.granted, 'b takes the claim over once it has seen it for a lease');
    await b.underClaim(del.claim, () => b.write([record('r', 'cancelled')]));
    await b.release(del.claim);

    // a wakes up and writes what it computed before the cancel, under its old claim.
    await a.release(pacer.claim, [record('r', 'running')]);
    assert.equal((await a.refresh()).reassignments.get('r')?.state, 'cancelled', 'a rebuilt its view: its own write was refused');
    assert.equal((await b.refresh()).reassignments.get('r')?.state, 'cancelled');
    const fresh = new StateStore(log);
    assert.equal((await fresh.refresh()).reassignments.get('r')?.state, 'cancelled', 'a reader from scratch refuses it too');
    assert.ok(
      events.b.some((e) => e.type === 'fenced' && e.where === 'in-log' && !e.own),
      'b reports the refused write',
    );
    assert.ok(
      events.a.some((e) => e.type === 'fenced' && e.where === 'in-log' && e.own),
      'a reports its own write refused',
    );
    assert.ok(events.a.some((e) => e.type === 'reset' && e.cause === 'own-write-refused'));

    // The refused record is the last of its key: compaction alone would resurrect it.
    assert.equal((await new StateStore(log.compacted()).refresh()).reassignments.get('r')?.state, 'running', 'without the repair');
    // The header, and the tombstone of the chunk that its (refused) new version replaced.
    const refused = b.refusedWrites();
    assert.deepEqual(
      refused.map((w) => w.resources),
      [['pacing/r']],
    );
    const keys = [...refused[0].keys];
    assert.ok(
      keys.includes('reassignment/r') && keys.every((k) => k === 'reassignment/r' || k.startsWith('reassignment-chunk/r/')),
      keys.join(),
    );
    assert.equal(await b.repairRefused('b', LEASE), keys.length);
    assert.deepEqual(b.refusedWrites(), []);
    assert.equal(
      (await new StateStore(log.compacted()).refresh()).reassignments.get('r')?.state,
      'cancelled',
      'after the repair, compaction keeps `cancelled`',
    );
    assert.equal((await a.refresh()).reassignments.get('r')?.state, 'cancelled');
  });

  it('a fenced tombstone is refused like a value (a late ledger delete cannot drop what the next holder owns)', async () => {
    const { log, a, b, clocks } = twoInstances();
    await a.write([record('keep', 'running')]);
    const old = await a.claim(['throttle/topic/t'], claimOpts('a'));
    assert.ok(old.granted);
    await b.refresh();
    clocks.b += LEASE;
    const next = await b.claim(['throttle/topic/t'], claimOpts('b'));
    assert.ok(next.granted);
    await b.release(next.claim, [record('keep', 'completed')]);
    await a.release(old.claim, [], ['reassignment/keep']);
    for (const s of [a, b, new StateStore(log)]) assert.equal((await s.refresh()).reassignments.get('keep')?.state, 'completed');
  });

  it('a holder whose own lease is over writes nothing: FencedWriteError before producing, the claim still released', async () => {
    const { log, a, clocks, events } = twoInstances();
    const c = await a.claim(['pacing/r'], claimOpts('a'));
    assert.ok(c.granted);
    assert.equal(a.holds(c.claim), true);
    assert.equal(a.holds(c.claim, LEASE), false, 'not for a whole lease more');
    clocks.a += LEASE - 400; // inside the lease, but within its reserve (a tenth of it)
    assert.equal(a.holds(c.claim), false);
    const before = log.records.length;
    await assert.rejects(
      a.release(c.claim, [record('r', 'running')]),
      (err: unknown) => err instanceof FencedWriteError && err.where === 'before-write',
    );
    assert.deepEqual(
      log.records.slice(before).map((r) => [r.key, r.value]),
      [[`claim/${c.claim.id}`, null]],
      'only the claim tombstone',
    );
    assert.ok(events.a.some((e) => e.type === 'fenced' && e.where === 'before-write'));
    // Work done under the claim (a service's write) is refused the same way.
    const d = await a.claim(['pacing/s'], claimOpts('a'));
    assert.ok(d.granted);
    clocks.a += LEASE;
    await assert.rejects(
      a.underClaim(d.claim, () => a.write([record('s', 'running')])),
      FencedWriteError,
    );
    assert.equal((await a.refresh()).reassignments.has('s'), false);
  });

  it('writes under a claim that holds are accepted by every reader, and cost no read-back', async () => {
    const { log, a, b } = twoInstances();
    await b.refresh();
    const c = await a.claim(['pacing/r'], claimOpts('a'));
    assert.ok(c.granted);
    let reads = 0;
    const read = log.read.bind(log);
    log.read = async (f, t) => (reads++, read(f, t));
    await a.underClaim(c.claim, () => a.write([record('r', 'pending')]));
    await a.release(c.claim, [record('r', 'running')]);
    await a.refresh();
    assert.equal(reads, 0, 'own fenced batches passed, not fetched back');
    for (const s of [a, b, new StateStore(log), new StateStore(log.compacted())])
      assert.equal((await s.refresh()).reassignments.get('r')?.state, 'running');
    assert.deepEqual(a.refusedWrites(), []);
    assert.ok(!log.compacted().records.some((r) => r.key.startsWith('fence/')), 'markers are tombstoned in their own batch');
  });
});

describe('leases on monotonic clocks, decided in log order (K1)', () => {
  it('a wall clock 20 s ahead takes nothing over early; a reader from scratch decides every claim as the watchers did', async () => {
    const { log, a, b, clocks } = twoInstances();
    const held = await b.claim(['pacing/r'], claimOpts('b'));
    assert.ok(held.granted);
    await a.refresh();
    // a's wall clock says b's lease ended 15 s ago; a's own clock says it just saw the claim.
    clocks.a += LEASE - 1;
    const early = await a.claim(['pacing/r'], claimOpts('a'));
    assert.equal(early.granted, false);
    assert.equal(!early.granted && early.holder?.owner, 'b');
    clocks.a += 1;
    const late = await a.claim(['pacing/r'], claimOpts('a'));
    assert.ok(late.granted);
    await b.refresh();
    assert.equal(b.holds(held.claim), false, 'b sees it was taken over');
    const fresh = new StateStore(log);
    await fresh.refresh();
    assert.deepEqual(
      fresh.claims().map((c) => [c.id, c.granted]),
      b.claims().map((c) => [c.id, c.granted]),
    );
  });

  it('a claim of an older gateway (no takesOver) is decided by the old wall-clock rule', async () => {
    const { log, b } = twoInstances();
    const held = await b.claim(['x'], { purpose: 'p', owner: 'b', ttlMs: 1000 });
    assert.ok(held.granted);
    const old = {
      kind: 'claim',
      v: 1,
      id: 'old-1',
      resources: ['x'],
      purpose: 'p',
      owner: 'old',
      createdAt: 1_700_000_000_000 + 1000,
      expiresAt: 1_700_000_000_000 + 2000,
    };
    await log.write([{ key: 'claim/old-1', value: JSON.stringify(old) }]);
    await b.refresh();
    assert.equal(b.claims().find((c) => c.id === 'old-1')?.granted, true, 'its createdAt is at the end of the holder lease');
  });
});
