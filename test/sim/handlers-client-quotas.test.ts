// AlterClientQuotas (49) and DescribeClientQuotas (48) over real TCP: raw requests for the
// exact fields and Kafka's error texts, and @platformatic/kafka's Admin as a real client.
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { Admin, ClientQuotaMatchTypes } from '@platformatic/kafka';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';

let sim: Simulator;
let port: number;

before(async () => {
  sim = await startSimulator({ brokers: 1 });
  port = sim.endpoints()[0].port;
});
after(async () => {
  await sim.close();
});

const user = (name: string | null) => ({ entityType: 'user', entityName: name });
const client = (name: string | null) => ({ entityType: 'client-id', entityName: name });
const set = (key: string, value: number) => ({ key, value, remove: false });
const remove = (key: string) => ({ key, value: 0, remove: true });

async function alter(entries: unknown[], validateOnly = false, version = 1): Promise<any> {
  return request(port, 49, version, { entries, validateOnly });
}
async function describe(components: unknown[], strict = false, version = 1): Promise<any> {
  return request(port, 48, version, { components, strict });
}
const exact = (entityType: string, match: string) => ({ entityType, matchType: 0, match });
const dflt = (entityType: string) => ({ entityType, matchType: 1, match: null });
const any = (entityType: string) => ({ entityType, matchType: 2, match: null });
/** Entries as sorted strings, e.g. "client-id=<default>|controller_mutation_rate=2". */
const flat = (res: any): string[] =>
  res.entries
    .map(
      (e: any) =>
        `${e.entity.map((c: any) => `${c.entityType}=${c.entityName ?? '<default>'}`).join(',')}|${e.values
          .map((v: any) => `${v.key}=${v.value}`)
          .sort()
          .join(',')}`,
    )
    .sort();

async function clearAll(): Promise<void> {
  const all = await describe([]);
  if (all.entries.length === 0) return;
  const res = await alter(all.entries.map((e: any) => ({ entity: e.entity, ops: e.values.map((v: any) => remove(v.key)) })));
  for (const e of res.entries) assert.equal(e.errorCode, 0);
}
beforeEach(clearAll);

test('ApiVersions advertises DescribeClientQuotas and AlterClientQuotas v0-v1', async () => {
  const res = await request(port, 18, 3, { clientSoftwareName: 't', clientSoftwareVersion: '1' });
  const byKey = new Map(res.apiKeys.map((k: any) => [k.apiKey, [k.minVersion, k.maxVersion]]));
  assert.deepEqual(byKey.get(48), [0, 1]);
  assert.deepEqual(byKey.get(49), [0, 1]);
});

test('set, describe with every match type and strict, then remove key by key', async () => {
  const res = await alter([
    { entity: [client(null)], ops: [set('controller_mutation_rate', 2)] },
    { entity: [user('alice')], ops: [set('producer_byte_rate', 1024), set('consumer_byte_rate', 2048)] },
    { entity: [user('alice'), client('etl')], ops: [set('request_percentage', 50)] },
    { entity: [user(null)], ops: [set('controller_mutation_rate', 5.5)] },
  ]);
  assert.equal(res.throttleTimeMs, 0);
  assert.deepEqual(
    res.entries.map((e: any) => e.errorCode),
    [0, 0, 0, 0],
  );
  assert.deepEqual(res.entries[2].entity, [client('etl'), user('alice')], 'Kafka lists client-id before user');

  const all = await describe([]);
  assert.equal(all.errorCode, 0);
  assert.equal(all.errorMessage, null);
  assert.deepEqual(flat(all), [
    'client-id=<default>|controller_mutation_rate=2',
    'client-id=etl,user=alice|request_percentage=50',
    'user=<default>|controller_mutation_rate=5.5',
    'user=alice|consumer_byte_rate=2048,producer_byte_rate=1024',
  ]);
  assert.deepEqual((await describe([], true)).entries, [], 'strict with no components matches nothing');
  assert.deepEqual(flat(await describe([exact('user', 'alice')])), [
    'client-id=etl,user=alice|request_percentage=50',
    'user=alice|consumer_byte_rate=2048,producer_byte_rate=1024',
  ]);
  assert.deepEqual(flat(await describe([exact('user', 'alice')], true)), ['user=alice|consumer_byte_rate=2048,producer_byte_rate=1024']);
  assert.deepEqual(flat(await describe([dflt('client-id')])), ['client-id=<default>|controller_mutation_rate=2']);
  assert.deepEqual(flat(await describe([any('client-id')])), [
    'client-id=<default>|controller_mutation_rate=2',
    'client-id=etl,user=alice|request_percentage=50',
  ]);
  assert.deepEqual(flat(await describe([any('user')], true)), [
    'user=<default>|controller_mutation_rate=5.5',
    'user=alice|consumer_byte_rate=2048,producer_byte_rate=1024',
  ]);
  assert.deepEqual(flat(await describe([exact('user', 'alice'), any('client-id')], true)), [
    'client-id=etl,user=alice|request_percentage=50',
  ]);
  assert.deepEqual(flat(await describe([exact('user', 'bob')])), []);
  assert.deepEqual(flat(await describe([any('ip')])), [], 'no ip quotas configured');

  const removed = await alter([
    { entity: [user('alice')], ops: [remove('producer_byte_rate'), remove('request_percentage')] },
    { entity: [client(null)], ops: [remove('controller_mutation_rate')] },
  ]);
  assert.deepEqual(
    removed.entries.map((e: any) => e.errorCode),
    [0, 0],
    'removing an unset key is fine',
  );
  assert.deepEqual(flat(await describe([])), [
    'client-id=etl,user=alice|request_percentage=50',
    'user=<default>|controller_mutation_rate=5.5',
    'user=alice|consumer_byte_rate=2048',
  ]);
});

test('v0 (not flexible) works the same', async () => {
  const res = await alter([{ entity: [client('v0')], ops: [set('consumer_byte_rate', 10)] }], false, 0);
  assert.equal(res.entries[0].errorCode, 0);
  const d = await describe([exact('client-id', 'v0')], false, 0);
  assert.deepEqual(flat(d), ['client-id=v0|consumer_byte_rate=10']);
});

test('validateOnly validates and changes nothing', async () => {
  const ok = await alter([{ entity: [client('dry')], ops: [set('controller_mutation_rate', 3)] }], true);
  assert.equal(ok.entries[0].errorCode, 0);
  const bad = await alter([{ entity: [client('dry')], ops: [set('nope', 3)] }], true);
  assert.equal(bad.entries[0].errorCode, 42);
  assert.deepEqual((await describe([])).entries, []);
});

test("AlterClientQuotas errors: INVALID_REQUEST (42) with Kafka's messages, per entity", async () => {
  const res = await alter([
    { entity: [{ entityType: 'group', entityName: 'g' }], ops: [set('controller_mutation_rate', 1)] },
    { entity: [], ops: [set('controller_mutation_rate', 1)] },
    { entity: [client('')], ops: [set('controller_mutation_rate', 1)] },
    { entity: [client('k')], ops: [set('foo', 1)] },
    { entity: [client('z')], ops: [set('controller_mutation_rate', 0)] },
    { entity: [client('n')], ops: [set('producer_byte_rate', -5)] },
    { entity: [client('f')], ops: [set('producer_byte_rate', 10.5)] },
    { entity: [client('d'), user('u')], ops: [set('request_percentage', 1), set('request_percentage', 2)] },
    { entity: [client('good')], ops: [set('request_percentage', 10)] },
    { entity: [client('mixed')], ops: [set('request_percentage', 10), set('producer_byte_rate', 0.5)] },
  ]);
  assert.deepEqual(
    res.entries.map((e: any) => [e.errorCode, e.errorMessage]),
    [
      [42, 'Unhandled client quota entity type: group'],
      [42, 'Invalid empty client quota entity'],
      [42, 'Empty client-id not supported'],
      [42, 'Invalid configuration key foo'],
      [42, 'Quota controller_mutation_rate must be greater than 0'],
      [42, 'Quota producer_byte_rate must be greater than 0'],
      [42, 'producer_byte_rate cannot be a fractional value.'],
      [42, 'Ignoring duplicate entity ClientQuotaEntity(entries={client-id=d, user=u})'],
      [0, null],
      [42, 'producer_byte_rate cannot be a fractional value.'],
    ],
  );
  assert.deepEqual(res.entries[7].entity, [client('d'), user('u')]);
  assert.deepEqual(
    flat(await describe([])),
    ['client-id=good|request_percentage=10'],
    'only the valid entity applied; a bad op voids its whole entity',
  );
});

const ip = (name: string | null) => ({ entityType: 'ip', entityName: name });

test('ip entities: connection_creation_rate only, never combined with user/client-id, default = null name (Kafka)', async () => {
  const res = await alter([
    { entity: [ip('10.0.0.7')], ops: [set('connection_creation_rate', 20)] },
    { entity: [ip(null)], ops: [set('connection_creation_rate', 100)] },
    { entity: [ip('::1')], ops: [set('connection_creation_rate', 5)] },
    { entity: [ip('10.0.0.8'), user('u')], ops: [set('connection_creation_rate', 1)] },
    { entity: [ip('10.0.0.9')], ops: [set('producer_byte_rate', 1024)] },
    { entity: [ip('not-an-ip.invalid')], ops: [set('connection_creation_rate', 1)] },
    { entity: [ip('10.0.0.10')], ops: [set('connection_creation_rate', 1.5)] },
    { entity: [ip('10.0.0.11')], ops: [set('connection_creation_rate', 2 ** 31)] },
    { entity: [ip('10.0.0.12')], ops: [set('connection_creation_rate', 0)] },
    { entity: [user('u')], ops: [set('connection_creation_rate', 1)] },
  ]);
  assert.deepEqual(
    res.entries.map((e: any) => [e.errorCode, e.errorMessage]),
    [
      [0, null],
      [0, null],
      [0, null],
      [42, 'Invalid quota entity combination, IP entity shouldnot be combined with User or ClientId'],
      [42, 'Invalid configuration key producer_byte_rate'],
      [42, 'not-an-ip.invalid is not a valid IP or resolvable host.'],
      [42, 'connection_creation_rate cannot be a fractional value.'],
      [42, 'Proposed value for connection_creation_rate is too large for an INT.'],
      [42, 'Quota connection_creation_rate must be greater than 0'],
      [42, 'Invalid configuration key connection_creation_rate'],
    ],
  );
  assert.deepEqual(flat(await describe([])), [
    'ip=10.0.0.7|connection_creation_rate=20',
    'ip=::1|connection_creation_rate=5',
    'ip=<default>|connection_creation_rate=100',
  ]);
  assert.deepEqual(flat(await describe([exact('ip', '10.0.0.7')])), ['ip=10.0.0.7|connection_creation_rate=20']);
  assert.deepEqual(flat(await describe([dflt('ip')], true)), ['ip=<default>|connection_creation_rate=100']);
  assert.deepEqual(flat(await describe([any('ip')])).length, 3);
  assert.deepEqual(flat(await describe([any('user')])), [], 'ip entities are not user entities');
  const removed = await alter([{ entity: [ip(null)], ops: [remove('connection_creation_rate')] }]);
  assert.equal(removed.entries[0].errorCode, 0);
  assert.deepEqual(flat(await describe([dflt('ip')])), []);
});

test('the same entity twice: one result "Ignoring duplicate entity", the first change applies (Kafka)', async () => {
  const res = await alter([
    { entity: [client('twice')], ops: [set('request_percentage', 1)] },
    { entity: [client('twice')], ops: [set('request_percentage', 2)] },
  ]);
  assert.deepEqual(res.entries, [
    { errorCode: 42, errorMessage: 'Ignoring duplicate entity ClientQuotaEntity(entries={client-id=twice})', entity: [client('twice')] },
  ]);
  assert.deepEqual(flat(await describe([])), ['client-id=twice|request_percentage=1']);
});

test('DescribeClientQuotas errors fail the request with entries null', async () => {
  const cases: Array<[unknown[], number, string]> = [
    [[exact('group', 'g')], 35, 'Unsupported entity type group'],
    [[exact('', 'x')], 42, 'Invalid empty entity type.'],
    [[exact('user', 'a'), any('user')], 42, 'Entity type user cannot appear more than once in the filter.'],
    [[{ entityType: 'user', matchType: 0, match: null }], 42, 'Request specified MATCH_TYPE_EXACT, but set match string to null.'],
    [[{ entityType: 'user', matchType: 1, match: 'x' }], 42, 'Request specified MATCH_TYPE_DEFAULT, but also specified a match string.'],
    [[{ entityType: 'user', matchType: 2, match: 'x' }], 42, 'Request specified MATCH_TYPE_SPECIFIED, but also specified a match string.'],
    [[{ entityType: 'user', matchType: 7, match: null }], 42, 'Unknown match type 7'],
    [
      [any('ip'), any('user')],
      42,
      'Invalid entity filter component combination. IP filter component should not be used with user or clientId filter component.',
    ],
  ];
  for (const [components, code, message] of cases) {
    const res = await describe(components);
    assert.deepEqual([res.errorCode, res.errorMessage, res.entries], [code, message, null], message);
  }
});

test('@platformatic/kafka Admin: alterClientQuotas / describeClientQuotas round trip, errors surface', async () => {
  const admin = new Admin({ clientId: 'quota-admin', bootstrapBrokers: sim.bootstrapServers, retries: 0 });
  try {
    const altered = await admin.alterClientQuotas({
      entries: [
        { entities: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'controller_mutation_rate', value: 2, remove: false }] },
        { entities: [{ entityType: 'user', entityName: 'alice' }], ops: [{ key: 'producer_byte_rate', value: 1048576, remove: false }] },
      ],
    });
    assert.deepEqual(
      altered.map((e) => e.errorCode),
      [0, 0],
    );
    const defaults = await admin.describeClientQuotas({
      components: [{ entityType: 'client-id', matchType: ClientQuotaMatchTypes.DEFAULT }],
      strict: true,
    });
    assert.deepEqual(defaults, [
      { entity: [{ entityType: 'client-id', entityName: null }], values: [{ key: 'controller_mutation_rate', value: 2 }] },
    ]);
    const alice = await admin.describeClientQuotas({
      components: [{ entityType: 'user', matchType: ClientQuotaMatchTypes.EXACT, match: 'alice' }],
    });
    assert.deepEqual(alice, [
      { entity: [{ entityType: 'user', entityName: 'alice' }], values: [{ key: 'producer_byte_rate', value: 1048576 }] },
    ]);

    await admin.alterClientQuotas({
      entries: [{ entities: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'controller_mutation_rate', remove: true }] }],
    });
    assert.deepEqual(
      await admin.describeClientQuotas({ components: [{ entityType: 'client-id', matchType: ClientQuotaMatchTypes.ANY }] }),
      [],
    );

    await assert.rejects(
      admin.alterClientQuotas({
        entries: [
          { entities: [{ entityType: 'client-id', entityName: 'x' }], ops: [{ key: 'controller_mutation_rate', value: 0, remove: false }] },
        ],
      }),
      (e: any) => e.findBy?.('apiCode', 42)?.serverErrorMessage === 'Quota controller_mutation_rate must be greater than 0',
    );
  } finally {
    await admin.close();
  }
});
