// F4 (issue 14): the cross-instance ledger race, forced. Two gateway instances on one
// simulated cluster, reconcilers off, gates in the throttle sync:
//
//   A's demand exists; A's sync plans from {A}, writes its write-ahead ledger, and is held
//   just before its config write. B's demand is written; B's sync (planning from {A, B}) runs;
//   then A's config write lands last.
//
// Before the fix, B's ledger said "the gateway wrote 500" while the cluster held A's 1000: once
// both demands were gone, 1000 looked like someone else's value and stayed for good, with an
// empty ledger. With claims on the state topic, B cannot plan while A holds the broker's
// resource: it re-plans after A's release, from what A actually wrote.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { RECORD_VERSION, throttleRequestKey, type ThrottleRequestRecord } from '../../src/state/records.js';
import type { ThrottleDemand } from '../../src/domain/reassignment/index.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startReassignGateway, throttleConfigs } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3 });
});
after(() => sim?.close());

function request(id: string, demand: ThrottleDemand): ThrottleRequestRecord {
  return {
    kind: 'throttle-request',
    v: RECORD_VERSION,
    id,
    demand,
    autoRemove: false,
    waitFor: null,
    expiresAt: null,
    owner: id,
    requestedBy: null,
    createdAt: Date.now(),
    updatedAt: Date.now(),
  };
}

it('A plans from {A}, B from {A, B}, A writes its configs last: nothing stays once both demands are gone', async () => {
  let holdA = false;
  let reachedA!: () => void;
  const aReached = new Promise<void>((r) => (reachedA = r));
  let openA!: () => void;
  const aOpen = new Promise<void>((r) => (openA = r));
  const a = await startReassignGateway({
    sim,
    reconcile: false,
    env: { GATEWAY_INSTANCE_ID: 'a' },
    syncGate: async (point) => {
      if (holdA && point === 'before-config-write') {
        reachedA();
        await aOpen;
      }
    },
  });
  const b = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'b' } });
  try {
    assert.equal(
      (
        await a
          .http()
          .post('/topics')
          .send({ name: 'race', assignments: [[0, 1]] })
      ).status,
      201,
    );
    await a.runtime.store.write([request('dem-a', { topics: { race: { follower: ['0:1'] } }, brokers: { '1': { leaderRate: 1000 } } })]);
    holdA = true;
    const pA = a.runtime.throttleSync.sync();
    await aReached; // A has planned from {A} and written its write-ahead ledger

    await b.runtime.store.write([request('dem-b', { topics: { race: { follower: ['0:2'] } }, brokers: { '1': { leaderRate: 500 } } })]);
    // B's sync either runs to the end (the race) or finds A's claim and waits for it.
    const store = b.runtime.store as unknown as { claim?: (...args: unknown[]) => Promise<{ granted: boolean }> };
    let blocked!: () => void;
    const bBlocked = new Promise<void>((r) => (blocked = r));
    if (store.claim) {
      const claim = store.claim.bind(store);
      store.claim = async (...args) => {
        const r = await claim(...args);
        if (!r.granted) blocked();
        return r;
      };
    }
    const pB = b.runtime.throttleSync.sync();
    await Promise.race([pB, bBlocked]);
    openA();
    holdA = false;
    await Promise.all([pA, pB]);

    // Both demands are served: the lowest rate wins, both list entries are there.
    await b.runtime.throttleSync.sync();
    const during = await throttleConfigs(a.kafka);
    assert.equal(during['broker:1']?.['leader.replication.throttled.rate'], '500', JSON.stringify(during));
    assert.equal(during['topic:race']?.['follower.replication.throttled.replicas'], '0:1,0:2', JSON.stringify(during));

    // Both demands end; each instance syncs until it has nothing left to do.
    await a.runtime.store.write([], [throttleRequestKey('dem-a'), throttleRequestKey('dem-b')]);
    await eventually(async () => {
      const ra = await a.runtime.throttleSync.sync();
      const rb = await b.runtime.throttleSync.sync();
      return ra.converged && rb.converged && ra.alterations.length === 0 && rb.alterations.length === 0 ? true : undefined;
    });
    assert.deepEqual(await throttleConfigs(a.kafka), {}, 'every throttle the gateway set is removed');
    await a.runtime.store.refresh();
    assert.equal(a.runtime.store.view().ledger.size, 0, 'and the ledger is empty');
  } finally {
    openA();
    await a.close();
    await b.close();
  }
});

it('DELETE /throttles/*?includeExternal=true claims like every other throttle change: it waits for another instance holding the resource', async () => {
  const a = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'a' } });
  const b = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'b' } });
  try {
    // Someone else's rate on broker 2, and B in the middle of a change of broker 2 (holding its claim).
    const set = await a.kafka.incrementalAlterConfigs([
      { kind: 'broker', name: '2', ops: [{ name: 'follower.replication.throttled.rate', op: 'SET', value: '6666' }] },
    ]);
    assert.ok(set.every((r) => r.ok));
    const held = await b.runtime.store.claim(['throttle/broker/2'], { purpose: 'throttle-sync', owner: 'b', ttlMs: 60_000 });
    assert.ok(held.granted);

    let blocked!: () => void;
    const aBlocked = new Promise<void>((r) => (blocked = r));
    const store = a.runtime.store;
    const claim = store.claim.bind(store);
    store.claim = async (...args) => {
      const r = await claim(...args);
      if (!r.granted) blocked();
      return r;
    };
    let answered = false;
    const del = a
      .http()
      .delete('/throttles/rates?brokers=2&includeExternal=true')
      .then((r) => ((answered = true), r));
    // Before the fix the delete went straight to Kafka: answered, and the rate gone, while B held the claim.
    await Promise.race([aBlocked, del]);
    assert.equal(answered, false, 'no answer while another instance holds broker 2');
    assert.equal(
      (await throttleConfigs(a.kafka))['broker:2']?.['follower.replication.throttled.rate'],
      '6666',
      'untouched while B holds the claim',
    );

    await b.runtime.store.release(held.claim);
    const res = await del;
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.rates, []);
    assert.equal((await throttleConfigs(a.kafka))['broker:2'], undefined);
  } finally {
    await a.close();
    await b.close();
  }
});
