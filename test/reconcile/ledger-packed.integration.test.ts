// Packed ledger records (src/state/records.ts) through Kafka: a throttle of more than
// LEDGER_PACK_MIN entries on one topic is owned by a packed v3 record that another instance
// reads back exactly, and that instance removes the gateway's entries while someone else's
// entries (the prior value) stay. Simulator over TCP, reconcilers off.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { LEDGER_PACK_MIN, RECORD_VERSION, encodeValue, throttleRequestKey, type ThrottleRequestRecord } from '../../src/state/records.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startReassignGateway, throttleConfigs } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3 });
});
after(() => sim?.close());

it('a topic-wide throttle is owned by a packed ledger record that a second instance reads and removes exactly', async () => {
  const partitions = 400;
  const a = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'a' } });
  const b = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'b' } });
  try {
    const assignments = Array.from({ length: partitions }, (_, p) => [p % 3]);
    assert.equal((await a.http().post('/topics').send({ name: 'wide', assignments })).status, 201);
    // Someone else's follower throttle: every partition on broker 1 (kept when the gateway's go).
    const external = Array.from({ length: partitions }, (_, p) => `${p}:1`)
      .sort()
      .join(',');
    const set = await a.kafka.incrementalAlterConfigs([
      { kind: 'topic', name: 'wide', ops: [{ name: 'follower.replication.throttled.replicas', op: 'SET', value: external }] },
    ]);
    assert.ok(set.every((r) => r.ok));

    const follower = Array.from({ length: partitions }, (_, p) => [`${p}:1`, `${p}:2`])
      .flat()
      .sort();
    const leader = Array.from({ length: partitions }, (_, p) => `${p}:${p % 3}`).sort();
    const now = Date.now();
    const req: ThrottleRequestRecord = {
      kind: 'throttle-request',
      v: RECORD_VERSION,
      id: 'wide',
      demand: { topics: { wide: { leader, follower } }, brokers: {} },
      autoRemove: false,
      waitFor: null,
      expiresAt: null,
      owner: 'a',
      requestedBy: null,
      createdAt: now,
      updatedAt: now,
    };
    await a.runtime.store.write([req]);
    const r = await a.runtime.throttleSync.sync();
    assert.ok(r.converged, JSON.stringify(r.failures));
    const during = (await throttleConfigs(a.kafka))['topic:wide'];
    assert.equal(during['follower.replication.throttled.replicas'], follower.join(','));
    assert.equal(during['leader.replication.throttled.replicas'], leader.join(','));

    // B reads the ledger A wrote: packed on the wire, the exact lists in memory.
    await b.runtime.store.refresh();
    const owned = b.runtime.store.view().ledger.get('topic/wide')!;
    assert.ok(owned.topic!.leader!.added.length >= LEDGER_PACK_MIN);
    assert.equal(JSON.parse(encodeValue(owned)).v, 3, 'stored packed');
    assert.deepEqual(owned.topic!.leader, { prior: null, added: leader });
    assert.deepEqual(owned.topic!.follower, { prior: external, added: follower.filter((e) => !e.endsWith(':1')) });

    // The demand ends; B removes exactly what the gateway added.
    await b.runtime.store.write([], [throttleRequestKey('wide')]);
    await eventually(async () => {
      const rb = await b.runtime.throttleSync.sync();
      return rb.converged && rb.alterations.length === 0 ? true : undefined;
    });
    assert.deepEqual((await throttleConfigs(a.kafka))['topic:wide'], { 'follower.replication.throttled.replicas': external });
    await a.runtime.store.refresh();
    assert.equal(a.runtime.store.view().ledger.size, 0, 'the ledger is empty');
  } finally {
    await a.close();
    await b.close();
  }
});
