// Trouble on demand (src/sim/cluster/trouble.ts) over the control port: a broker that falls
// behind leaves the ISRs it follows and rejoins when it catches up; partitions under min ISR
// refuse acks=all produces (NOT_ENOUGH_REPLICAS, as Kafka) until restored; a broker restart
// does not undo trouble that was asked for; Metadata on the wire shows all of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { startControlServer } from '../../src/sim/control.js';
import { request } from './wire.js';
import { buildBatch } from './cluster/helpers.js';

async function call(url: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  return { status: res.status, body: await res.json() };
}

/** Leader and ISR of every partition of `topic`, from a Metadata v12 request on the wire. */
async function isrOnWire(sim: Simulator, topic: string): Promise<[number, number, number[]][]> {
  const port = sim.endpoints().find((e) => e.up)!.port;
  const md = await request(port, 3, 12, {
    topics: [{ name: topic, topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  return md.topics[0].partitions.map((p: any) => [p.partitionIndex, p.leaderId, p.isrNodes]);
}

test('a broker falls behind and catches up; a restart keeps it out; GET /trouble says what is asked for', async () => {
  const sim = await startSimulator({ brokers: 3 });
  const control = await startControlServer(sim);
  try {
    sim.model.createTopic({
      name: 'f',
      assignments: [
        { partition: 0, brokerIds: [0, 1, 2] },
        { partition: 1, brokerIds: [2, 0, 1] },
      ],
    });
    sim.model.createTopic({ name: 'g', assignments: [{ partition: 0, brokerIds: [1, 0] }] });
    const behind = await call(`${control.url}/brokers/2/fall-behind`, 'POST');
    assert.deepEqual(behind, { status: 200, body: { id: 2, behind: true, isrChanged: 1 } });
    // Partition 1 is led by 2: a leader stays in its ISR. Topic g has no replica on 2.
    assert.deepEqual(await isrOnWire(sim, 'f'), [
      [0, 0, [0, 1]],
      [1, 2, [2, 0, 1]],
    ]);
    assert.deepEqual(await isrOnWire(sim, 'g'), [[0, 1, [1, 0]]]);
    assert.deepEqual((await call(`${control.url}/trouble`)).body, { behind: [2], heldOut: [] });

    // Broker 1 restarts: the model re-adds live replicas to ISRs, but 2 is still behind.
    assert.equal((await call(`${control.url}/brokers/1/stop`, 'POST')).status, 200);
    assert.equal((await call(`${control.url}/brokers/1/start`, 'POST')).status, 200);
    assert.deepEqual((await isrOnWire(sim, 'f'))[0], [0, 0, [0, 1]]);

    const caught = await call(`${control.url}/brokers/2/catch-up`, 'POST');
    assert.deepEqual(caught, { status: 200, body: { id: 2, behind: false, isrChanged: 1 } });
    assert.deepEqual((await isrOnWire(sim, 'f'))[0], [0, 0, [0, 1, 2]], 'it rejoins last, as maybeExpandIsr appends');
    assert.deepEqual((await call(`${control.url}/trouble`)).body, { behind: [], heldOut: [] });

    assert.equal((await call(`${control.url}/brokers/9/fall-behind`, 'POST')).status, 404);
    assert.equal((await call(`${control.url}/brokers/x/catch-up`, 'POST')).status, 400);
  } finally {
    await control.close();
    await sim.close();
  }
});

test('partitions under min ISR: acks=all refused with NOT_ENOUGH_REPLICAS until restored', async () => {
  const sim = await startSimulator({ brokers: 3 });
  const control = await startControlServer(sim);
  try {
    sim.model.createTopic({
      name: 'm',
      assignments: [
        { partition: 0, brokerIds: [0, 1, 2] },
        { partition: 1, brokerIds: [1, 2, 0] },
      ],
      configs: [{ name: 'min.insync.replicas', value: '2' }],
    });
    const out = await call(`${control.url}/topics/m/under-min-isr`, 'POST', { partitions: [0] });
    assert.equal(out.status, 200, JSON.stringify(out.body));
    assert.deepEqual(out.body, { topic: 'm', minIsr: 2, partitions: [{ partition: 0, isr: [0] }] });
    assert.deepEqual(await isrOnWire(sim, 'm'), [
      [0, 0, [0]],
      [1, 1, [1, 2, 0]],
    ]);
    // Kafka's check (Partition.appendRecordsToLeader): ISR below min.insync.replicas with acks=all.
    assert.throws(
      () => sim.model.append('m', 0, buildBatch(['v']), { acks: -1 }),
      (err: any) => err.code === 19,
    );
    assert.deepEqual(
      (await call(`${control.url}/trouble`)).body.heldOut.map((h: any) => [h.partition, h.broker]),
      [
        [0, 1],
        [0, 2],
      ],
    );

    // A broker restart does not bring the held-out replicas back.
    await call(`${control.url}/brokers/2/stop`, 'POST');
    await call(`${control.url}/brokers/2/start`, 'POST');
    assert.deepEqual((await isrOnWire(sim, 'm'))[0], [0, 0, [0]]);
    sim.model.append('m', 1, buildBatch(['v']), { acks: -1 });

    const restored = await call(`${control.url}/topics/m/restore-isr`, 'POST', {});
    assert.equal(restored.status, 200);
    assert.deepEqual(restored.body.partitions, [
      { partition: 0, isr: [0, 1, 2] },
      { partition: 1, isr: [1, 0, 2] }, // 2 rejoined last after its restart
    ]);

    assert.equal((await call(`${control.url}/topics/nope/under-min-isr`, 'POST')).status, 404);
    assert.equal((await call(`${control.url}/topics/m/under-min-isr`, 'POST', { partitions: [7] })).status, 404);
    assert.equal((await call(`${control.url}/topics/m/under-min-isr`, 'POST', { partitions: 'all' })).status, 400);
    assert.equal((await call(`${control.url}/topics/m/under-min-isr`, 'POST', { other: 1 })).status, 400);
  } finally {
    await control.close();
    await sim.close();
  }
});
