// The simulator answers as a chosen Kafka release (--kafka-version / kafkaVersion, kafkaMode):
// that release's ApiVersions ranges (cut to what the simulator implements) and features, and a
// request outside them closes the connection, as Kafka's SocketServer does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startSimulator } from '../../src/sim/index.js';
import { API_VERSIONS_BY_RELEASE } from '../../src/domain/kafka-api-versions-by-release.js';
import { kafkaRelease, knownReleases, NEWEST_RELEASE } from '../../src/sim/releases/release.js';
import { exchange, frame, request } from './wire.js';

const apiVersions = (port: number) => request(port, 18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });

for (const [version, mode] of [
  ['2.8', 'zookeeper'],
  ['3.7', 'zookeeper'],
  ['3.7', 'kraft'],
  ['4.2', 'kraft'],
] as const) {
  test(`Kafka ${version} (${mode}): ApiVersions lists exactly the release's ranges of the implemented APIs`, async () => {
    const sim = await startSimulator({ brokers: 1, kafkaVersion: version, kafkaMode: mode });
    try {
      const res = await apiVersions(sim.endpoints()[0].port);
      const table = API_VERSIONS_BY_RELEASE[`${mode === 'kraft' ? 'kraft-broker' : 'zk'}-${version}`];
      const byKey = new Map(Object.values(table).map(([k, min, max]) => [k, [min, max]]));
      for (const k of res.apiKeys) {
        const [min, max] = byKey.get(k.apiKey)!;
        const handler = sim.handlers.get(k.apiKey)!;
        const [hMin, hMax] = handler.versions ?? handler.request.valid;
        assert.deepEqual([k.minVersion, k.maxVersion], [Math.max(min, hMin), Math.min(max, hMax)], `${handler.name}`);
      }
      // Every implemented API the release has is advertised; none it lacks.
      const advertised = new Set(res.apiKeys.map((k: any) => k.apiKey));
      for (const key of sim.handlers.keys()) assert.equal(advertised.has(key), byKey.has(key), `key ${key}`);
      const mv = res.finalizedFeatures.find((f: any) => f.name === 'metadata.version');
      if (mode === 'zookeeper') assert.equal(mv, undefined, 'no metadata.version in ZooKeeper mode');
      else assert.ok(mv.maxVersionLevel >= 7);
    } finally {
      await sim.close();
    }
  });
}

test('a request outside the release range closes the connection and is recorded', async () => {
  const sim = await startSimulator({ brokers: 1, kafkaVersion: '3.7' });
  try {
    const port = sim.endpoints()[0].port;
    // Fetch v17 exists from 3.9; a 3.7 broker accepts up to v16.
    assert.equal(
      await exchange(
        port,
        frame(1, 17, {
          clusterId: null,
          replicaState: { replicaId: -1, replicaEpoch: -1 },
          maxWaitMs: 0,
          minBytes: 0,
          maxBytes: 1,
          isolationLevel: 0,
          sessionId: 0,
          sessionEpoch: -1,
          topics: [],
          forgottenTopicsData: [],
          rackId: '',
        }),
      ),
      'closed',
    );
    // DescribeTopicPartitions (75) exists from 3.8.
    assert.equal(await exchange(port, frame(75, 0, { topics: [], responsePartitionLimit: 10, cursor: null })), 'closed');
    assert.deepEqual(
      sim.outOfRange.map((r) => [r.api, r.version, r.accepted]),
      [
        ['Fetch', 17, [4, 16]],
        ['DescribeTopicPartitions', 0, null],
      ],
    );
  } finally {
    await sim.close();
  }
});

test('ZooKeeper mode (2.8 has no KRaft): NOT_CONTROLLER errors on, the reported controller is the real one', async () => {
  const sim = await startSimulator({ brokers: 2, kafkaVersion: '2.8' });
  try {
    assert.equal(sim.release.mode, 'zookeeper');
    assert.equal(sim.notControllerErrors, true);
    assert.equal(sim.reportedControllerId(), sim.model.controllerId);
  } finally {
    await sim.close();
  }
});

test('releases: KRaft where the table has it; an unknown release is refused naming those known', () => {
  assert.equal(kafkaRelease().version, NEWEST_RELEASE);
  assert.equal(kafkaRelease('2.8').mode, 'zookeeper');
  assert.equal(kafkaRelease('3.5').mode, 'kraft');
  assert.ok(knownReleases('zookeeper').includes('3.9'));
  assert.throws(
    () => kafkaRelease('4.2', 'zookeeper'),
    /no Kafka 4.2 in ZooKeeper mode: known are ZooKeeper 2.4, .*3.9 and KRaft 3.3, .*4.2/,
  );
  assert.throws(() => kafkaRelease('9.9'), RangeError);
});

test('ZooKeeper mode neither checks nor charges a validateOnly CreateTopics against the mutation quota; KRaft does', async () => {
  for (const mode of ['zookeeper', 'kraft'] as const) {
    const sim = await startSimulator({ brokers: 1, kafkaVersion: '3.7', kafkaMode: mode, notControllerErrors: false });
    try {
      sim.clientQuotas.alter(
        [{ entity: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'controller_mutation_rate', value: 1, remove: false }] }],
        false,
      );
      const port = sim.endpoints()[0].port;
      const create = (name: string, validateOnly: boolean) =>
        request(port, 19, 7, {
          topics: [{ name, numPartitions: 20, replicationFactor: 1, assignments: [], configs: [] }],
          timeoutMs: 1000,
          validateOnly,
        });
      const dry = await create('dry', true);
      const real = await create('real', false);
      // Burst 11 (1/s x 11 windows): in KRaft the dry run's 20 already drove the bucket negative.
      assert.deepEqual([dry.topics[0].errorCode, real.topics[0].errorCode], mode === 'zookeeper' ? [0, 0] : [0, 89], mode);
    } finally {
      await sim.close();
    }
  }
});

test("a topic's configs are its release's: 3.9's 36; from 4.0 on 33, and message.timestamp.after.max.ms one hour (KIP-1030)", async () => {
  const removed = ['message.downconversion.enable', 'message.format.version', 'message.timestamp.difference.max.ms'];
  for (const [version, count, after] of [
    ['3.9', 36, '9223372036854775807'],
    ['4.0', 33, '3600000'],
    ['4.2', 33, '3600000'],
  ] as const) {
    const sim = await startSimulator({ brokers: 1, kafkaVersion: version });
    try {
      sim.model.createTopic({ name: 't', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }, { validateOnly: false });
      const res = await request(sim.endpoints()[0].port, 32, 4, {
        resources: [{ resourceType: 2, resourceName: 't', configurationKeys: null }],
        includeSynonyms: false,
        includeDocumentation: false,
      });
      const configs = new Map<string, string>(res.results[0].configs.map((c: { name: string; value: string }) => [c.name, c.value]));
      assert.equal(configs.size, count, version);
      assert.equal(configs.get('message.timestamp.after.max.ms'), after, version);
      for (const name of removed) assert.equal(configs.has(name), count === 36, `${version} ${name}`);
      // Setting a removed one on 4.x: Kafka's "Unknown topic config name".
      const set = await request(sim.endpoints()[0].port, 44, 1, {
        resources: [
          { resourceType: 2, resourceName: 't', configs: [{ name: 'message.format.version', configOperation: 0, value: '3.0' }] },
        ],
        validateOnly: true,
      });
      assert.equal(set.responses[0].errorCode, count === 36 ? 0 : 40, version);
    } finally {
      await sim.close();
    }
  }
});
