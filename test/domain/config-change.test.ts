// The pure part of PATCH .../configs: the keys the gateway keeps, and the validateOnly projection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gatewayOwnedKeys, keysSetAndDeleted, projectChange, synonymValue, type DescribedConfig } from '../../src/domain/config-change.js';

const cfg = (name: string, value: string | null, source: string, synonyms: DescribedConfig['synonyms']): DescribedConfig => ({
  name,
  value,
  source,
  isSensitive: false,
  isReadOnly: false,
  synonyms,
});
const retention = cfg('retention.ms', '1000', 'DYNAMIC_TOPIC_CONFIG', [
  { name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG' },
  { name: 'log.retention.hours', value: '168', source: 'DEFAULT_CONFIG' },
]);
const policy = cfg('cleanup.policy', 'delete', 'DEFAULT_CONFIG', [
  { name: 'log.cleanup.policy', value: 'delete', source: 'DEFAULT_CONFIG' },
]);

test("throttle keys are the gateway's, per level; set and delete of one name is found", () => {
  assert.deepEqual(
    gatewayOwnedKeys('topic', {
      set: { 'retention.ms': '1', 'leader.replication.throttled.replicas': '*' },
      delete: ['follower.replication.throttled.replicas'],
    }),
    ['leader.replication.throttled.replicas', 'follower.replication.throttled.replicas'],
  );
  assert.deepEqual(
    gatewayOwnedKeys('topic', { set: { 'leader.replication.throttled.rate': '1' }, delete: [] }),
    [],
    'a rate is a broker key',
  );
  assert.deepEqual(gatewayOwnedKeys('broker', { set: {}, delete: ['replica.alter.log.dirs.io.max.bytes.per.second'] }), [
    'replica.alter.log.dirs.io.max.bytes.per.second',
  ]);
  assert.deepEqual(keysSetAndDeleted({ set: { a: '1', b: '2' }, delete: ['b', 'c'] }), ['b']);
});

test('a broker synonym in hours or minutes is converted for a .ms config, anything else is taken as is', () => {
  assert.equal(synonymValue('retention.ms', { name: 'log.retention.hours', value: '168' }), '604800000');
  assert.equal(synonymValue('segment.ms', { name: 'log.roll.minutes', value: '2' }), '120000');
  assert.equal(synonymValue('cleanup.policy', { name: 'log.cleanup.policy', value: 'delete' }), 'delete');
  assert.equal(synonymValue('retention.ms', { name: 'log.retention.hours', value: null }), null);
});

test('projection: a set goes on top, a delete shows the level below, other configs stay as they are', () => {
  const after = projectChange([retention, policy], 'topic', { set: { 'cleanup.policy': 'compact' }, delete: ['retention.ms'] });
  assert.deepEqual(after, [
    cfg('cleanup.policy', 'compact', 'DYNAMIC_TOPIC_CONFIG', [
      { name: 'cleanup.policy', value: 'compact', source: 'DYNAMIC_TOPIC_CONFIG' },
      ...policy.synonyms,
    ]),
    cfg('retention.ms', '604800000', 'DEFAULT_CONFIG', [{ name: 'log.retention.hours', value: '168', source: 'DEFAULT_CONFIG' }]),
  ]);
  assert.deepEqual(projectChange([retention, policy], 'topic', { set: {}, delete: [] }), [policy, retention]);
});

test('projection on a broker: an unknown name set is added, deleted again it is gone; sensitive values stay hidden', () => {
  const secret = {
    ...cfg('ssl.key.password', null, 'DYNAMIC_BROKER_CONFIG', [{ name: 'ssl.key.password', value: null, source: 'DYNAMIC_BROKER_CONFIG' }]),
    isSensitive: true,
  };
  const added = projectChange([secret], 'broker', { set: { 'custom.x': '1', 'ssl.key.password': 'hunter2' }, delete: [] });
  assert.deepEqual(
    added.map((c) => [c.name, c.value, c.source]),
    [
      ['custom.x', '1', 'DYNAMIC_BROKER_CONFIG'],
      ['ssl.key.password', null, 'DYNAMIC_BROKER_CONFIG'],
    ],
  );
  assert.deepEqual(projectChange(added, 'broker', { set: {}, delete: ['custom.x', 'ssl.key.password'] }), []);
});
