import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeModel, throwsKafka } from './helpers.js';
import { ConfigSource, ConfigType, TOPIC_CONFIG_DEFS } from '../../../src/sim/cluster/configs.js';

const TOPIC = 2;
const BROKER = 4;
const SET = 0;
const DELETE = 1;
const APPEND = 2;
const SUBTRACT = 3;

function setup() {
  const m = makeModel(3);
  m.createTopic({ name: 't', numPartitions: 1, configs: [{ name: 'retention.ms', value: '1000' }] });
  return m;
}

test("ConfigSource / ConfigType ids are Kafka's", () => {
  assert.deepEqual(ConfigSource, {
    UNKNOWN: 0,
    TOPIC_CONFIG: 1,
    DYNAMIC_BROKER_CONFIG: 2,
    DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
    STATIC_BROKER_CONFIG: 4,
    DEFAULT_CONFIG: 5,
    DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  });
  assert.equal(ConfigType.LONG, 5);
  assert.equal(ConfigType.LIST, 7);
});

test('describe topic: explicit -> TOPIC_CONFIG, others DEFAULT_CONFIG with synonyms', () => {
  const m = setup();
  const all = m.describeConfigs({ type: TOPIC, name: 't' }, null);
  assert.equal(all.length, TOPIC_CONFIG_DEFS.length);
  const ret = all.find((e) => e.name === 'retention.ms')!;
  assert.equal(ret.value, '1000');
  assert.equal(ret.source, ConfigSource.TOPIC_CONFIG);
  assert.equal(ret.isDefault, false);
  assert.equal(ret.configType, ConfigType.LONG);
  assert.deepEqual(ret.synonyms, [
    { name: 'retention.ms', value: '1000', source: 1 },
    { name: 'log.retention.hours', value: '168', source: 5 },
  ]);
  const [cp] = m.describeConfigs({ type: TOPIC, name: 't' }, ['cleanup.policy']);
  assert.deepEqual(
    { name: cp.name, value: cp.value, source: cp.source, isDefault: cp.isDefault, readOnly: cp.readOnly, type: cp.configType },
    { name: 'cleanup.policy', value: 'delete', source: 5, isDefault: true, readOnly: false, type: ConfigType.LIST },
  );
  assert.deepEqual(m.describeConfigs({ type: TOPIC, name: 't' }, ['nope']), []);
  assert.deepEqual(m.describeConfigs({ type: TOPIC, name: 't' }, []), []);
  throwsKafka(() => m.describeConfigs({ type: TOPIC, name: 'missing' }, null), 3, "The topic 'missing' does not exist.");
  throwsKafka(() => m.describeConfigs({ type: TOPIC, name: 'bad name' }, null), 17);
});

test('describe broker: per-broker DYNAMIC_BROKER_CONFIG, cluster default DYNAMIC_DEFAULT_BROKER_CONFIG, DEFAULT_CONFIG, STATIC', () => {
  const m = makeModel(
    [
      { id: 0, rack: 'r0' },
      { id: 1, rack: null },
    ],
    { numPartitionsDefault: 3 },
  );
  const rate = () => m.describeConfigs({ type: BROKER, name: '0' }, ['leader.replication.throttled.rate'])[0];
  // A DynamicConfig.Broker config, not in KafkaConfig: absent until set (no Long.MAX_VALUE default entry).
  assert.equal(rate(), undefined);
  assert.ok(!m.describeConfigs({ type: BROKER, name: '0' }, null).some((e) => e.name.endsWith('.replication.throttled.rate')));

  m.incrementalAlterConfigs({ type: BROKER, name: '' }, [{ name: 'leader.replication.throttled.rate', op: SET, value: '500' }]);
  assert.equal(rate().value, '500');
  assert.equal(rate().source, ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG);

  m.incrementalAlterConfigs({ type: BROKER, name: '0' }, [{ name: 'leader.replication.throttled.rate', op: SET, value: '100' }]);
  assert.equal(rate().value, '100');
  assert.equal(rate().source, ConfigSource.DYNAMIC_BROKER_CONFIG);
  assert.equal(rate().readOnly, false);
  assert.deepEqual(rate().synonyms, [
    { name: 'leader.replication.throttled.rate', value: '100', source: 2 },
    { name: 'leader.replication.throttled.rate', value: '500', source: 3 },
  ]);
  // broker 1 only sees the cluster default
  assert.equal(m.describeConfigs({ type: BROKER, name: '1' }, ['leader.replication.throttled.rate'])[0].value, '500');
  assert.equal(m.effectiveBrokerConfig(1, 'leader.replication.throttled.rate'), '500');
  // the cluster-default resource lists only what is set there
  const dflt = m.describeConfigs({ type: BROKER, name: '' }, null);
  assert.deepEqual(
    dflt.map((e) => [e.name, e.value, e.source]),
    [['leader.replication.throttled.rate', '500', 3]],
  );
  // static layer
  const [np] = m.describeConfigs({ type: BROKER, name: '0' }, ['num.partitions']);
  assert.deepEqual([np.value, np.source, np.readOnly], ['3', ConfigSource.STATIC_BROKER_CONFIG, true]);
  const [rack] = m.describeConfigs({ type: BROKER, name: '0' }, ['broker.rack']);
  assert.equal(rack.value, 'r0');
  throwsKafka(() => m.describeConfigs({ type: BROKER, name: '7' }, null), 102);
  throwsKafka(() => m.describeConfigs({ type: BROKER, name: 'x' }, null), 42);
  throwsKafka(
    () => m.describeConfigs({ type: BROKER, name: '1' }, null, { nodeId: 0 }),
    42,
    'Unexpected broker id, expected 0 or empty string, but received 1',
  );
});

test('incrementalAlterConfigs on a topic: SET, DELETE, APPEND, SUBTRACT', () => {
  const m = setup();
  const cfg = () => m.getTopic('t')!.configs;
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [
    { name: 'retention.ms', op: DELETE, value: null },
    { name: 'min.insync.replicas', op: SET, value: '2' },
    { name: 'leader.replication.throttled.replicas', op: APPEND, value: '0:1,1:2' },
  ]);
  assert.deepEqual(cfg(), { 'min.insync.replicas': '2', 'leader.replication.throttled.replicas': '0:1,1:2' });
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [{ name: 'leader.replication.throttled.replicas', op: APPEND, value: '1:2,2:0' }]);
  assert.equal(cfg()['leader.replication.throttled.replicas'], '0:1,1:2,2:0');
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [
    { name: 'leader.replication.throttled.replicas', op: SUBTRACT, value: '0:1,9:9' },
  ]);
  assert.equal(cfg()['leader.replication.throttled.replicas'], '1:2,2:0');
  // APPEND to an unset LIST starts from its default
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [{ name: 'cleanup.policy', op: APPEND, value: 'compact' }]);
  assert.equal(cfg()['cleanup.policy'], 'delete,compact');
  // DELETE of something unset (even unknown) is accepted
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [{ name: 'not.a.config', op: DELETE, value: null }]);
  const [mir] = m.describeConfigs({ type: TOPIC, name: 't' }, ['min.insync.replicas']);
  assert.deepEqual([mir.value, mir.source], ['2', 1]);
});

test('incrementalAlterConfigs errors, and nothing changes on error', () => {
  const m = setup();
  const before = { ...m.getTopic('t')!.configs };
  const r = { type: TOPIC, name: 't' };
  throwsKafka(
    () => m.incrementalAlterConfigs(r, [{ name: 'retention.ms', op: APPEND, value: '5' }]),
    40,
    "Can't APPEND to key retention.ms because its type is not LIST.",
  );
  throwsKafka(
    () => m.incrementalAlterConfigs(r, [{ name: 'retention.ms', op: SUBTRACT, value: '5' }]),
    40,
    "Can't SUBTRACT to key retention.ms because its type is not LIST.",
  );
  throwsKafka(
    () =>
      m.incrementalAlterConfigs(r, [
        { name: 'retention.ms', op: SET, value: '1' },
        { name: 'retention.ms', op: DELETE, value: null },
      ]),
    42,
    'Error due to duplicate config keys',
  );
  throwsKafka(
    () => m.incrementalAlterConfigs(r, [{ name: 'retention.ms', op: SET, value: null }]),
    42,
    'Null value not supported for : retention.ms',
  );
  throwsKafka(
    () =>
      m.incrementalAlterConfigs(r, [
        { name: 'segment.ms', op: SET, value: '5' },
        { name: 'not.a.real.topic.config', op: SET, value: '1' },
      ]),
    40,
    'Unknown topic config name: not.a.real.topic.config',
  );
  throwsKafka(
    () =>
      m.incrementalAlterConfigs(r, [
        { name: 'segment.ms', op: SET, value: '5' },
        { name: 'retention.ms', op: SET, value: 'x' },
      ]),
    40,
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: TOPIC, name: 'baz' }, [{ name: 'segment.ms', op: SET, value: '5' }]),
    3,
    "The topic 'baz' does not exist.",
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: TOPIC, name: '' }, [{ name: 'segment.ms', op: SET, value: '5' }]),
    42,
    'Default topic resources are not allowed.',
  );
  throwsKafka(() => m.incrementalAlterConfigs(r, [{ name: 'segment.ms', op: 7, value: '5' }]), 42);
  assert.deepEqual(m.getTopic('t')!.configs, before);
});

test('incrementalAlterConfigs on brokers: validation and errors', () => {
  const m = setup();
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: BROKER, name: '0' }, [{ name: 'follower.replication.throttled.rate', op: SET, value: '-1' }]),
    42,
    'Invalid value -1 for configuration follower.replication.throttled.rate: Value must be at least 0',
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: BROKER, name: '0' }, [{ name: 'follower.replication.throttled.rate', op: SET, value: 'fast' }]),
    42,
    'Invalid value fast for configuration follower.replication.throttled.rate: Not a number of type LONG',
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: BROKER, name: '0' }, [{ name: 'num.partitions', op: SET, value: '3' }]),
    42,
    'Cannot update these configs dynamically: Set(num.partitions)',
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: BROKER, name: '0' }, [{ name: 'log.cleaner.threads', op: APPEND, value: '3' }]),
    40,
    "Can't APPEND to key log.cleaner.threads because its type is not LIST.",
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: BROKER, name: '9' }, [{ name: 'log.cleaner.threads', op: SET, value: '3' }]),
    102,
    'No node with id 9 found.',
  );
  throwsKafka(
    () => m.incrementalAlterConfigs({ type: BROKER, name: 'abc' }, [{ name: 'log.cleaner.threads', op: SET, value: '3' }]),
    42,
    'Node id must be an integer, but it is: abc',
  );
  throwsKafka(
    () =>
      m.incrementalAlterConfigs({ type: BROKER, name: '1' }, [{ name: 'log.cleaner.threads', op: SET, value: '3' }], false, { nodeId: 0 }),
    42,
    'Unexpected broker id, expected 0, but received 1',
  );
  assert.deepEqual(m.dynamicBrokerConfigs('0'), {});
  m.incrementalAlterConfigs({ type: BROKER, name: '1' }, [
    { name: 'leader.replication.throttled.rate', op: SET, value: '10' },
    { name: 'follower.replication.throttled.rate', op: SET, value: '20' },
  ]);
  m.incrementalAlterConfigs({ type: BROKER, name: '1' }, [{ name: 'leader.replication.throttled.rate', op: DELETE, value: null }]);
  assert.deepEqual(m.dynamicBrokerConfigs('1'), { 'follower.replication.throttled.rate': '20' });
});

test('legacy alterConfigs replaces every dynamic config of the resource', () => {
  const m = setup();
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [{ name: 'leader.replication.throttled.replicas', op: SET, value: '*' }]);
  m.alterConfigs({ type: TOPIC, name: 't' }, [{ name: 'segment.ms', value: '60000' }]);
  assert.deepEqual(m.getTopic('t')!.configs, { 'segment.ms': '60000' });
  m.alterConfigs({ type: TOPIC, name: 't' }, []);
  assert.deepEqual(m.getTopic('t')!.configs, {});

  m.incrementalAlterConfigs({ type: BROKER, name: '2' }, [{ name: 'leader.replication.throttled.rate', op: SET, value: '1' }]);
  m.alterConfigs({ type: BROKER, name: '2' }, [{ name: 'log.cleaner.threads', value: '2' }]);
  assert.deepEqual(m.dynamicBrokerConfigs('2'), { 'log.cleaner.threads': '2' });

  throwsKafka(
    () =>
      m.alterConfigs({ type: TOPIC, name: 't' }, [
        { name: 'a', value: '1' },
        { name: 'a', value: '2' },
      ]),
    42,
    'Error due to duplicate config keys',
  );
  throwsKafka(
    () => m.alterConfigs({ type: TOPIC, name: 't' }, [{ name: 'retention.ms', value: null }]),
    42,
    'Null value not supported for : retention.ms',
  );
  throwsKafka(() => m.alterConfigs({ type: TOPIC, name: 't' }, [{ name: 'bogus', value: '1' }]), 40, 'Unknown topic config name: bogus');
  throwsKafka(() => m.alterConfigs({ type: TOPIC, name: 'nope' }, [{ name: 'retention.ms', value: '1' }]), 3);
  assert.deepEqual(m.getTopic('t')!.configs, {});
});

test('validateOnly changes nothing (incremental and legacy)', () => {
  const m = setup();
  m.incrementalAlterConfigs({ type: TOPIC, name: 't' }, [{ name: 'retention.ms', op: SET, value: '5' }], true);
  m.alterConfigs({ type: TOPIC, name: 't' }, [], true);
  assert.deepEqual(m.getTopic('t')!.configs, { 'retention.ms': '1000' });
  m.incrementalAlterConfigs({ type: BROKER, name: '0' }, [{ name: 'log.cleaner.threads', op: SET, value: '3' }], true);
  m.alterConfigs({ type: BROKER, name: '' }, [{ name: 'log.cleaner.threads', value: '3' }], true);
  assert.deepEqual(m.dynamicBrokerConfigs('0'), {});
  assert.deepEqual(m.dynamicBrokerConfigs(''), {});
});

test('cluster-default broker synonyms feed topic defaults (min.insync.replicas)', () => {
  const m = setup();
  m.incrementalAlterConfigs({ type: BROKER, name: '' }, [{ name: 'min.insync.replicas', op: SET, value: '2' }]);
  const [e] = m.describeConfigs({ type: TOPIC, name: 't' }, ['min.insync.replicas']);
  assert.deepEqual([e.value, e.source], ['2', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG]);
  assert.equal(m.effectiveTopicConfig('t', 'min.insync.replicas'), '2');
});
