// Issue 9 (follow-up): the throttle lists of a paced reassignment's wave cover every move Kafka
// lists when the wave starts (anybody's), merged as Kafka's tool merges ongoing reassignments
// into the lists of the moves it starts; not only the reassignment's own moves.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { createTopics, startReassignGateway, throttleConfigs } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 3 });
});
after(() => sim?.close());

it("a wave's throttle lists include other moves running in the cluster (Kafka's tool semantics)", async () => {
  const gw = await startReassignGateway({ sim, reconcile: false, env: { GATEWAY_INSTANCE_ID: 'a' } });
  try {
    await createTopics(gw, { name: 'pc', assignments: [[0], [0]] }, { name: 'ext', assignments: [[2]] });
    sim.seedBytes('pc', 0, 1_000);
    sim.seedBytes('pc', 1, 2_000);
    sim.seedBytes('ext', 0, 5_000_000_000); // minutes at the simulator's bandwidth
    // perBroker 1: pc:0 first (smallest), pc:1 in the next wave (both use brokers 0 and 1).
    const res = await gw
      .http()
      .post('/reassignments')
      .send({
        partitions: [
          { topic: 'pc', partition: 0, replicas: [1] },
          { topic: 'pc', partition: 1, replicas: [1] },
        ],
        throttle: 1_000_000,
        concurrency: { perBroker: 1 },
      });
    assert.equal(res.status, 202, JSON.stringify(res.body));
    const id = res.body.id as string;
    await eventually(async () => ((await gw.kafka.listPartitionReassignments()).some((m) => m.topic === 'pc') ? undefined : true));

    // Someone else's move starts outside the gateway (ext:0 from broker 2 to broker 0).
    const ext = await gw.kafka.alterPartitionReassignments([{ topic: 'ext', partition: 0, replicas: [0] }]);
    assert.ok(ext.every((r) => r.ok));
    const r0 = (await gw.runtime.store.refresh()).reassignments.get(id)!;
    assert.equal(r0.throttleDemand!.topics.ext, undefined, 'the first wave started before it');

    const step = await gw.runtime.reconciler.pacer.advance(id);
    assert.deepEqual(step, { kind: 'advanced', started: 1, failed: 0, settled: 1 });
    const r1 = gw.runtime.store.view().reassignments.get(id)!;
    // As kafka-reassign-partitions.sh --execute would set them for pc:1 while ext:0 moves.
    assert.deepEqual(r1.throttleDemand!.topics.ext, { leader: ['0:2'], follower: ['0:0'] }, JSON.stringify(r1.throttleDemand));
    assert.deepEqual(r1.throttleDemand!.topics.pc, { leader: ['1:0'], follower: ['1:1'] }, JSON.stringify(r1.throttleDemand));
    assert.deepEqual(Object.keys(r1.throttleDemand!.brokers).sort(), ['0', '1', '2']);
    const configs = await throttleConfigs(gw.kafka);
    assert.equal(configs['topic:ext']?.['follower.replication.throttled.replicas'], '0:0', JSON.stringify(configs));
    assert.equal(configs['topic:ext']?.['leader.replication.throttled.replicas'], '0:2', JSON.stringify(configs));

    await gw.kafka.alterPartitionReassignments([{ topic: 'ext', partition: 0, replicas: null }]);
    assert.equal((await gw.http().delete(`/reassignments/${id}`)).status, 200);
  } finally {
    await gw.close();
  }
});
