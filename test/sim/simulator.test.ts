// The simulator over real TCP: framing, versions, hostile bytes, brokers going down,
// and the real client library the gateway uses driving every admin API it needs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Admin, Producer, stringSerializers } from '@platformatic/kafka';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request, exchange, frame } from './wire.js';

let sim: Simulator;
let admin: Admin;

before(async () => {
  sim = await startSimulator({ brokers: 3, racks: ['a', 'a', 'b'] });
  admin = new Admin({ clientId: 'sim-test', bootstrapBrokers: sim.bootstrapServers, retries: 0 });
});
after(async () => {
  await admin.close();
  await sim.close();
});

const port = (id: number): number => sim.endpoints().find((e) => e.id === id)!.port;

test('ApiVersions advertises the newest release ranges (4.2 by default), cut to the implemented APIs and versions', async () => {
  const res = await request(port(0), 18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  assert.equal(res.errorCode, 0);
  const byKey = new Map(res.apiKeys.map((k: any) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.deepEqual(byKey.get(19), [2, 7]); // 4.0 dropped CreateTopics v0-v1 (KIP-896)
  assert.deepEqual(byKey.get(20), [1, 6]);
  assert.deepEqual(byKey.get(37), [0, 3]);
  assert.deepEqual(byKey.get(3), [0, 13]);
  assert.deepEqual(byKey.get(45), [0, 1]); // KIP-860, 4.1
  assert.deepEqual(byKey.get(46), [0, 0]);
  assert.deepEqual(byKey.get(35), [1, 4]);
  for (const [key] of byKey) assert.ok(sim.handlers.has(key as number));
});

test('ApiVersions in an unknown version answers UNSUPPORTED_VERSION in v0 with only its own range (KIP-511)', async () => {
  const bytes = frame(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  bytes.writeInt16BE(99, 6); // request_api_version
  const answer = await exchange(port(0), bytes);
  assert.notEqual(answer, 'closed');
  const buf = answer as Buffer;
  assert.equal(buf.readInt16BE(4), 35); // after correlation id
  // Only ApiVersions' own range (ApiVersionsRequest.getErrorResponse): one entry, key 18.
  assert.equal(buf.readInt32BE(6), 1);
  assert.equal(buf.readInt16BE(10), 18);
});

test('a malformed frame closes that connection only; the broker keeps serving', async () => {
  const garbage = Buffer.alloc(20, 0xff);
  garbage.writeInt32BE(16, 0);
  garbage.writeInt16BE(19, 4); // CreateTopics
  garbage.writeInt16BE(7, 6);
  assert.equal(await exchange(port(1), garbage), 'closed');
  const tooBig = Buffer.alloc(8);
  tooBig.writeInt32BE(200 * 1024 * 1024, 0);
  assert.equal(await exchange(port(1), tooBig), 'closed');
  const unknownKey = frame(18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  unknownKey.writeInt16BE(999, 4);
  assert.equal(await exchange(port(1), unknownKey), 'closed');
  const res = await request(port(1), 60, 1, { includeClusterAuthorizedOperations: false, endpointType: 1 });
  assert.equal(res.errorCode, 0);
  assert.equal(res.brokers.length, 3);
});

test('requests split across TCP segments and pipelined on one connection are answered in order', async () => {
  const a = frame(60, 0, { includeClusterAuthorizedOperations: false }, 7);
  const b = frame(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }, 8);
  const all = Buffer.concat([a, b]);
  const ids = await new Promise<number[]>((resolve, reject) => {
    const s = net.connect(port(2), '127.0.0.1');
    let acc = Buffer.alloc(0);
    const seen: number[] = [];
    // Five bytes a turn: both frames arrive split across many reads.
    const writeInPieces = async () => {
      for (let i = 0; i < all.length; i += 5) {
        s.write(all.subarray(i, i + 5));
        await new Promise((r) => setImmediate(r));
      }
    };
    s.on('connect', () => {
      writeInPieces().catch(reject);
    });
    s.on('data', (d) => {
      acc = Buffer.concat([acc, d]);
      while (acc.length >= 4 && acc.length >= 4 + acc.readInt32BE(0)) {
        seen.push(acc.readInt32BE(4));
        acc = acc.subarray(4 + acc.readInt32BE(0));
      }
      if (seen.length === 2) {
        s.destroy();
        resolve(seen);
      }
    });
    s.on('error', reject);
  });
  assert.deepEqual(ids, [7, 8]);
});

test('the real client creates, describes, grows and deletes topics', async () => {
  const created = await admin.createTopics({ topics: ['orders'], partitions: 4, replicas: 2 });
  assert.equal(created[0].partitions, 4);
  assert.equal(created[0].replicas, 2);
  const md = await admin.metadata({ topics: ['orders'], forceUpdate: true });
  const t = md.topics.get('orders')!;
  assert.equal(t.partitionsCount, 4);
  for (const p of t.partitions) {
    assert.equal(new Set(p.replicas).size, 2);
    // Rack-aware: two replicas always straddle racks a and b.
    const racks = p.replicas.map((r: number) => sim.endpoints().find((e) => e.id === r)!.rack);
    assert.equal(new Set(racks).size, 2, `partition replicas ${p.replicas.join(',')} on racks ${racks.join(',')}`);
  }
  // No assignments: the client sends null and the controller places the new partitions.
  await admin.createPartitions({ topics: [{ name: 'orders', count: 6 }] });
  const md2 = await admin.metadata({ topics: ['orders'], forceUpdate: true });
  assert.equal(md2.topics.get('orders')!.partitionsCount, 6);
  await admin.deleteTopics({ topics: ['orders'] });
  assert.deepEqual(await admin.listTopics(), []);
});

test("the real client sees Kafka's validation errors", async () => {
  await admin.createTopics({ topics: ['dup'], partitions: 1, replicas: 1 });
  await assert.rejects(admin.createTopics({ topics: ['dup'], partitions: 1, replicas: 1 }), (e: any) => !!e.findBy?.('apiCode', 36));
  await assert.rejects(admin.createTopics({ topics: ['bad name!'], partitions: 1, replicas: 1 }), (e: any) => !!e.findBy?.('apiCode', 17));
  await assert.rejects(admin.createTopics({ topics: ['rf'], partitions: 1, replicas: 4 }), (e: any) => !!e.findBy?.('apiCode', 38));
  await assert.rejects(admin.createPartitions({ topics: [{ name: 'dup', count: 1 }] }), (e: any) => !!e.findBy?.('apiCode', 37));
  await assert.rejects(
    admin.createTopics({ topics: ['cfg'], partitions: 1, replicas: 1, configs: [{ name: 'no.such.config', value: '1' }] }),
    (e: any) => !!e.findBy?.('apiCode', 40),
  );
  assert.deepEqual(await admin.listTopics(), ['dup']);
  await admin.deleteTopics({ topics: ['dup'] });
});

test('configs: describe sources, incremental alter of topic and broker configs', async () => {
  await admin.createTopics({ topics: ['cfgs'], partitions: 1, replicas: 1, configs: [{ name: 'retention.ms', value: '1000' }] });
  const [desc] = await admin.describeConfigs({ resources: [{ resourceType: 2, resourceName: 'cfgs' }] });
  const retention = desc.configs.find((c: any) => c.name === 'retention.ms')!;
  assert.equal(retention.value, '1000');
  assert.equal(retention.configSource, 1); // TOPIC_CONFIG
  const cleanup = desc.configs.find((c: any) => c.name === 'cleanup.policy')!;
  assert.equal(cleanup.configSource, 5); // DEFAULT_CONFIG
  await admin.incrementalAlterConfigs({
    resources: [
      {
        resourceType: 2,
        resourceName: 'cfgs',
        configs: [{ name: 'leader.replication.throttled.replicas', configOperation: 0, value: '0:1' }],
      },
    ],
  });
  await admin.incrementalAlterConfigs({
    resources: [
      {
        resourceType: 4,
        resourceName: '1',
        configs: [{ name: 'leader.replication.throttled.rate', configOperation: 0, value: '1048576' }],
      },
    ],
  });
  const [broker] = await admin.describeConfigs({
    resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['leader.replication.throttled.rate'] }],
  });
  assert.equal(broker.configs[0].value, '1048576');
  await assert.rejects(
    admin.incrementalAlterConfigs({
      resources: [
        { resourceType: 4, resourceName: '1', configs: [{ name: 'leader.replication.throttled.rate', configOperation: 0, value: 'fast' }] },
      ],
    }),
    (e: any) => !!e.findBy?.('apiCode', 42),
  ); // broker configs: INVALID_REQUEST (KAFKA-13609)
  await assert.rejects(
    admin.incrementalAlterConfigs({
      resources: [{ resourceType: 2, resourceName: 'cfgs', configs: [{ name: 'retention.ms', configOperation: 0, value: 'soon' }] }],
    }),
    (e: any) => !!e.findBy?.('apiCode', 40),
  );
  await admin.deleteTopics({ topics: ['cfgs'] });
});

test('produce with the real producer lands in the partition log', async () => {
  await admin.createTopics({ topics: ['events'], partitions: 1, replicas: 3 });
  const producer = new Producer({ clientId: 'p', bootstrapBrokers: sim.bootstrapServers, serializers: stringSerializers });
  try {
    await producer.send({
      messages: [
        { topic: 'events', key: 'k', value: 'v1', partition: 0 },
        { topic: 'events', key: 'k', value: 'v2', partition: 0 },
      ],
    });
    await producer.send({ messages: [{ topic: 'events', key: 'k', value: 'v3', partition: 0 }] });
  } finally {
    await producer.close();
  }
  const offsets = await admin.listOffsets({ topics: [{ name: 'events', partitions: [{ partitionIndex: 0, timestamp: -1n }] }] });
  assert.equal(offsets[0].partitions[0].offset, 3n);
  assert.ok(sim.model.sizeBytes('events', 0) > 0);
  await admin.deleteTopics({ topics: ['events'] });
});

test('a stopped broker refuses connections, leaves the ISR, and comes back', async () => {
  await admin.createTopics({ topics: ['ha'], partitions: 3, replicas: 3 });
  const stoppedPort = port(2);
  await sim.stopBroker(2);
  await assert.rejects(
    new Promise((resolve, reject) => {
      const s = net.connect(stoppedPort, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(null);
      });
      s.on('error', reject);
    }),
    /ECONNREFUSED/,
  );
  const md = await request(port(0), 3, 12, {
    topics: [{ name: 'ha', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  assert.deepEqual(md.brokers.map((b: any) => b.nodeId).sort(), [0, 1]);
  for (const p of md.topics[0].partitions) {
    assert.ok(!p.isrNodes.includes(2));
    assert.deepEqual(p.offlineReplicas, [2]);
    assert.notEqual(p.leaderId, 2);
  }
  await sim.startBroker(2);
  const md2 = await request(port(2), 3, 12, {
    topics: [{ name: 'ha', topicId: 'AAAAAAAAAAAAAAAAAAAAAA' }],
    allowAutoTopicCreation: false,
    includeTopicAuthorizedOperations: false,
  });
  for (const p of md2.topics[0].partitions) assert.equal(p.isrNodes.length, 3);
  await admin.deleteTopics({ topics: ['ha'] });
});

test('ZooKeeper-mode brokers answer NOT_CONTROLLER to controller requests', async () => {
  const zk = await startSimulator({ brokers: 2, notControllerErrors: true });
  try {
    const controller = zk.model.controllerId;
    const other = zk.endpoints().find((e) => e.id !== controller)!;
    const body = {
      topics: [{ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 1000,
      validateOnly: false,
    };
    const refused = await request(other.port, 19, 7, body);
    assert.equal(refused.topics[0].errorCode, 41);
    const ok = await request(zk.endpoints().find((e) => e.id === controller)!.port, 19, 7, body);
    assert.equal(ok.topics[0].errorCode, 0);
  } finally {
    await zk.close();
  }
});

test('SASL PLAIN: the right password authenticates, a wrong one is refused', async () => {
  const secure = await startSimulator({ brokers: 1, saslPlainUsers: { alice: 'secret' } });
  try {
    const good = new Admin({
      clientId: 'a',
      bootstrapBrokers: secure.bootstrapServers,
      retries: 0,
      sasl: { mechanism: 'PLAIN', username: 'alice', password: 'secret' },
    });
    assert.deepEqual(await good.listTopics(), []);
    await good.close();
    const bad = new Admin({
      clientId: 'b',
      bootstrapBrokers: secure.bootstrapServers,
      retries: 0,
      sasl: { mechanism: 'PLAIN', username: 'alice', password: 'nope' },
    });
    await assert.rejects(bad.listTopics());
    await bad.close();
    // Without SASL, any request but ApiVersions/SASL closes the connection.
    const body = { includeClusterAuthorizedOperations: false, endpointType: 1 };
    assert.equal(await exchange(secure.endpoints()[0].port, frame(60, 1, body)), 'closed');
  } finally {
    await secure.close();
  }
});
