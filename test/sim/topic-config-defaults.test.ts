// A topic's configs as Kafka 3.9 describes them (the release the simulator answers as: ApiVersions
// reports metadata.version 3.9-IV0): the 36 names of LogConfig.configNames in 3.9, with the two
// 4.0 removed (message.format.version, message.timestamp.difference.max.ms) and 3.9's defaults.
// Read by kafka-python's admin client (DescribeConfigs, a client no one here wrote) and by a raw
// DescribeConfigs v4 for the types, sources and synonyms.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';

const run = promisify(execFile);
const PYTHON = '/usr/bin/python3';
const LONG_MAX = '9223372036854775807';

/** Kafka 3.9's LogConfig.configNames (storage LogConfig.CONFIG), sorted. */
const KAFKA_3_9_TOPIC_CONFIGS = [
  'cleanup.policy',
  'compression.gzip.level',
  'compression.lz4.level',
  'compression.type',
  'compression.zstd.level',
  'delete.retention.ms',
  'file.delete.delay.ms',
  'flush.messages',
  'flush.ms',
  'follower.replication.throttled.replicas',
  'index.interval.bytes',
  'leader.replication.throttled.replicas',
  'local.retention.bytes',
  'local.retention.ms',
  'max.compaction.lag.ms',
  'max.message.bytes',
  'message.downconversion.enable',
  'message.format.version',
  'message.timestamp.after.max.ms',
  'message.timestamp.before.max.ms',
  'message.timestamp.difference.max.ms',
  'message.timestamp.type',
  'min.cleanable.dirty.ratio',
  'min.compaction.lag.ms',
  'min.insync.replicas',
  'preallocate',
  'remote.log.copy.disable',
  'remote.log.delete.on.disable',
  'remote.storage.enable',
  'retention.bytes',
  'retention.ms',
  'segment.bytes',
  'segment.index.bytes',
  'segment.jitter.ms',
  'segment.ms',
  'unclean.leader.election.enable',
];

async function hasKafkaPython(): Promise<boolean> {
  try {
    await run(PYTHON, ['-c', 'import kafka']);
    return true;
  } catch {
    return false;
  }
}
const pySkip =
  (await hasKafkaPython()) || process.env.CI === 'true' ? false : 'kafka-python is not installed (apt-get install python3-kafka)';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 1, kafkaVersion: '3.9' }); // 3.9's configs (4.0 removed three: test/sim/releases.test.ts)
  sim.model.createTopic(
    { name: 'described', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
    { validateOnly: false },
  );
});
after(async () => {
  await sim.close();
});

test("kafka-python describes a topic with Kafka 3.9's 36 configs, names and default values", { skip: pySkip }, async () => {
  const script = `
import json, sys
from kafka.admin import KafkaAdminClient, ConfigResource, ConfigResourceType
a = KafkaAdminClient(bootstrap_servers=sys.argv[1], client_id='kafka-python-test', request_timeout_ms=10000)
desc = a.describe_configs([ConfigResource(ConfigResourceType.TOPIC, 'described')])
a.close()
print(json.dumps({c[0]: c[1] for c in desc[0].resources[0][4]}))
`;
  const { stdout } = await run(PYTHON, ['-c', script, sim.bootstrapServers[0]], { timeout: 60_000 });
  const configs: Record<string, string> = JSON.parse(stdout.trim().split('\n').pop()!);
  assert.deepEqual(Object.keys(configs).sort(), KAFKA_3_9_TOPIC_CONFIGS);
  assert.equal(Object.keys(configs).length, 36);
  assert.equal(configs['message.format.version'], '3.0-IV1');
  assert.equal(configs['message.timestamp.difference.max.ms'], LONG_MAX);
  assert.equal(configs['message.timestamp.after.max.ms'], LONG_MAX, '3.9 default; 4.0 (KIP-1030) made it one hour');
});

test('DescribeConfigs v4: the two configs 4.0 removed, with their types, DEFAULT_CONFIG source and broker synonyms', async () => {
  const res = await request(sim.endpoints()[0].port, 32, 4, {
    resources: [{ resourceType: 2, resourceName: 'described', configurationKeys: null }],
    includeSynonyms: true,
    includeDocumentation: false,
  });
  const configs = res.results[0].configs;
  assert.deepEqual(configs.map((c: any) => c.name).sort(), KAFKA_3_9_TOPIC_CONFIGS);
  const pick = (name: string) => {
    const c = configs.find((x: any) => x.name === name);
    return {
      value: c.value,
      type: c.configType,
      source: c.configSource,
      readOnly: c.readOnly,
      synonyms: c.synonyms.map((s: any) => [s.name, s.value, s.source]),
    };
  };
  assert.deepEqual(pick('message.format.version'), {
    value: '3.0-IV1',
    type: 2,
    source: 5,
    readOnly: false,
    synonyms: [['log.message.format.version', '3.0-IV1', 5]],
  });
  assert.deepEqual(pick('message.timestamp.difference.max.ms'), {
    value: LONG_MAX,
    type: 5,
    source: 5,
    readOnly: false,
    synonyms: [['log.message.timestamp.difference.max.ms', LONG_MAX, 5]],
  });
  const set = await request(sim.endpoints()[0].port, 44, 1, {
    resources: [
      { resourceType: 2, resourceName: 'described', configs: [{ name: 'message.format.version', configOperation: 0, value: 'nonsense' }] },
    ],
    validateOnly: true,
  });
  assert.equal(set.responses[0].errorCode, 40, 'MetadataVersionValidator refuses a value that is not a release');
});
