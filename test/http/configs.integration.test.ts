// GET/PATCH /topics/{topic}/configs and /brokers/{broker}/configs against a simulated
// 3-broker cluster over TCP and the real Kafka layer; every response is validated against
// openapi.yaml (validateResponses: true). What a refused PATCH leaves is read back from Kafka.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import type { Express } from 'express';
import { appOverKafka } from './app-over-kafka.js';
import type { PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { TopicConfigService } from '../../src/services/configs.js';
import { roleTokens, type RoleTokens } from './auth-helpers.js';
import { createTopics, expectProblem, startGateway, type Gateway } from './helpers.js';

let gw: Gateway;
let app: Express;
let roles: RoleTokens;
let authed: Express;
before(async () => {
  gw = await startGateway({ simulator: { brokers: 3 } });
  const configs = new TopicConfigService(gw.kafka as PlatformaticKafkaGateway);
  app = appOverKafka({ kafka: gw.kafka, configs, validateResponses: true });
  roles = roleTokens();
  authed = appOverKafka({ kafka: gw.kafka, configs, validateResponses: true, auth: roles.auth });
  await createTopics(gw, { name: 'cfg', partitions: 1, replicationFactor: 1 });
});
after(() => gw?.close());

type Config = { name: string; value: string | null; source: string; synonyms: { name: string; value: string | null; source: string }[] };
const http = () => request(app);
const byName = (configs: Config[], name: string) => configs.find((c) => c.name === name);
async function topicConfigs(topic = 'cfg'): Promise<Config[]> {
  const res = await http().get(`/topics/${topic}/configs`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.configs;
}

describe('GET /topics/{topic}/configs', () => {
  it('every config with its Kafka source and synonyms; includeDefaults=false lists only overrides', async () => {
    await createTopics(gw, { name: 'cfg-read', partitions: 1, replicationFactor: 1, configs: { 'retention.ms': '3600000' } });
    const all = await topicConfigs('cfg-read');
    assert.ok(all.length > 10, `${all.length} configs`);
    assert.deepEqual(
      all.map((c) => c.name),
      all.map((c) => c.name).sort(),
    );
    const retention = byName(all, 'retention.ms')!;
    assert.equal(retention.value, '3600000');
    assert.equal(retention.source, 'DYNAMIC_TOPIC_CONFIG');
    // The override first, then the level it hides (the broker's default, in its own unit, as Kafka lists it).
    assert.deepEqual(retention.synonyms, [
      { name: 'retention.ms', value: '3600000', source: 'DYNAMIC_TOPIC_CONFIG' },
      { name: 'log.retention.hours', value: '168', source: 'DEFAULT_CONFIG' },
    ]);
    assert.equal(byName(all, 'cleanup.policy')!.source, 'DEFAULT_CONFIG');

    const own = await http().get('/topics/cfg-read/configs?includeDefaults=false');
    assert.equal(own.status, 200);
    assert.deepEqual(
      own.body.configs.map((c: Config) => c.name),
      ['retention.ms'],
    );
  });

  it("unknown topic: 404 with Kafka's UNKNOWN_TOPIC_OR_PARTITION (3)", async () => {
    expectProblem(await http().get('/topics/no-such-topic/configs'), 404, 'unknown-topic-or-partition', 3);
  });
});

describe('PATCH /topics/{topic}/configs', () => {
  it('sets and deletes in one request, answers the configs after it; a delete falls back to the default', async () => {
    const set = await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'retention.ms': '86400000', 'cleanup.policy': 'compact' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.validateOnly, false);
    assert.deepEqual(
      [byName(set.body.configs, 'retention.ms')?.value, byName(set.body.configs, 'retention.ms')?.source],
      ['86400000', 'DYNAMIC_TOPIC_CONFIG'],
    );
    assert.deepEqual(byName(await topicConfigs(), 'cleanup.policy')?.value, 'compact', 'GET shows it too');

    const mixed = await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'max.message.bytes': '2000000' }, delete: ['retention.ms', 'cleanup.policy'] });
    assert.equal(mixed.status, 200, JSON.stringify(mixed.body));
    const own = (await http().get('/topics/cfg/configs?includeDefaults=false')).body.configs as Config[];
    assert.deepEqual(
      own.map((c) => [c.name, c.value]),
      [['max.message.bytes', '2000000']],
    );
    const retention = byName(mixed.body.configs, 'retention.ms')!;
    assert.deepEqual([retention.value, retention.source], ['604800000', 'DEFAULT_CONFIG']);
    assert.ok(retention.synonyms.every((s) => s.source !== 'DYNAMIC_TOPIC_CONFIG'));
    await http()
      .patch('/topics/cfg/configs')
      .send({ delete: ['max.message.bytes'] })
      .expect(200);
  });

  it('validateOnly (query or body): Kafka validates, nothing changes, the answer is what the configs would be', async () => {
    await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'segment.ms': '3600000' } })
      .expect(200);
    const before = await topicConfigs();
    for (const send of [
      () =>
        http()
          .patch('/topics/cfg/configs?validateOnly=true')
          .send({ set: { 'retention.ms': '1000' }, delete: ['segment.ms'] }),
      () =>
        http()
          .patch('/topics/cfg/configs')
          .send({ set: { 'retention.ms': '1000' }, delete: ['segment.ms'], validateOnly: true }),
    ]) {
      const res = await send();
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.validateOnly, true);
      const retention = byName(res.body.configs, 'retention.ms')!;
      assert.deepEqual(
        [retention.value, retention.source, retention.synonyms[0]?.source],
        ['1000', 'DYNAMIC_TOPIC_CONFIG', 'DYNAMIC_TOPIC_CONFIG'],
      );
      const segment = byName(res.body.configs, 'segment.ms')!;
      assert.deepEqual([segment.value, segment.source], ['604800000', 'DEFAULT_CONFIG']);
      assert.deepEqual(await topicConfigs(), before, 'nothing changed');
    }
    // Kafka's checks run: a bad value is refused even when only validating.
    expectProblem(
      await http()
        .patch('/topics/cfg/configs?validateOnly=true')
        .send({ set: { 'retention.ms': 'soon' } }),
      422,
      'invalid-config',
      40,
    );
    await http()
      .patch('/topics/cfg/configs')
      .send({ delete: ['segment.ms'] })
      .expect(200);
  });

  it('refuses the replication throttle lists with 409 pointing to /throttles, and changes nothing', async () => {
    const before = await topicConfigs();
    for (const body of [
      { set: { 'leader.replication.throttled.replicas': '0:0' } },
      { set: { 'retention.ms': '1000' }, delete: ['follower.replication.throttled.replicas'] },
    ]) {
      const res = await http().patch('/topics/cfg/configs').send(body);
      expectProblem(res, 409, 'gateway-managed-config');
      assert.match(res.body.detail, /\/throttles\/replicas/);
    }
    assert.deepEqual(await topicConfigs(), before);
  });

  it("Kafka's errors: unknown topic 404 (3), unknown name / bad value 422 (40); atomic: nothing of a refused request is applied", async () => {
    expectProblem(
      await http()
        .patch('/topics/no-such-topic/configs')
        .send({ set: { 'retention.ms': '1000' } }),
      404,
      'unknown-topic-or-partition',
      3,
    );
    expectProblem(
      await http()
        .patch('/topics/no-such-topic/configs?validateOnly=true')
        .send({ set: { 'retention.ms': '1000' } }),
      404,
      'unknown-topic-or-partition',
      3,
    );
    const before = await topicConfigs();
    const bad = await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'retention.ms': '1000', 'min.insync.replicas': 'many' } });
    expectProblem(bad, 422, 'invalid-config', 40);
    assert.equal(bad.body.kafkaError.name, 'INVALID_CONFIG');
    expectProblem(
      await http()
        .patch('/topics/cfg/configs')
        .send({ set: { 'no.such.config': '1' } }),
      422,
      'invalid-config',
      40,
    );
    assert.deepEqual(await topicConfigs(), before, 'retention.ms was not applied either');
  });

  it('a broker policy (44) is 422, a 89 is 429 with Retry-After from throttle_time_ms', async () => {
    const policy = gw.sim.faults.add({ apiKey: 44, times: 1, error: { code: 44, message: 'retention below the floor' } });
    const refused = await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'retention.ms': '1' } });
    expectProblem(refused, 422, 'policy-violation', 44);
    assert.equal(refused.body.detail, 'retention below the floor');
    assert.equal(gw.sim.faults.get(policy.id)!.applied, 1);
    gw.sim.faults.add({ apiKey: 44, times: 1, error: { code: 89, throttleTimeMs: 2500 } });
    const throttled = await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'retention.ms': '1000' } });
    expectProblem(throttled, 429, 'throttling-quota-exceeded', 89);
    assert.equal(throttled.headers['retry-after'], '3');
  });

  it('400 before Kafka: a name both set and deleted, a malformed name, a non-string value, validateOnly that disagree', async () => {
    const both = await http()
      .patch('/topics/cfg/configs')
      .send({ set: { 'retention.ms': '1' }, delete: ['retention.ms'] });
    expectProblem(both, 400, 'validation-failed');
    assert.equal(both.body.errors[0].path, '/body/delete');
    expectProblem(
      await http()
        .patch('/topics/cfg/configs')
        .send({ set: { 'bad name': '1' } }),
      400,
      'validation-failed',
    );
    expectProblem(
      await http()
        .patch('/topics/cfg/configs')
        .send({ set: { 'retention.ms': 1000 } }),
      400,
      'validation-failed',
    );
    expectProblem(await http().patch('/topics/cfg/configs?validateOnly=false').send({ validateOnly: true }), 400, 'validation-failed');
  });

  it('with authentication on: a viewer reads (200) but cannot change (403); an operator can', async () => {
    const as = (role: keyof RoleTokens['token']) => ({ Authorization: `Bearer ${roles.token[role]}` });
    assert.equal((await request(authed).get('/topics/cfg/configs').set(as('viewer'))).status, 200);
    const denied = await request(authed)
      .patch('/topics/cfg/configs')
      .set(as('viewer'))
      .send({ set: { 'retention.ms': '1000' } });
    expectProblem(denied, 403, 'insufficient-role');
    assert.equal(byName(await topicConfigs(), 'retention.ms')?.source, 'DEFAULT_CONFIG');
    const ok = await request(authed)
      .patch('/topics/cfg/configs?validateOnly=true')
      .set(as('operator'))
      .send({ set: { 'retention.ms': '1000' } });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    expectProblem(
      await request(authed)
        .patch('/brokers/0/configs')
        .set(as('operator'))
        .send({ set: { 'log.cleaner.threads': '2' } }),
      403,
      'insufficient-role',
    );
  });
});

describe('GET/PATCH /brokers/{broker}/configs', () => {
  it("reads a broker's configs with sources; sets and deletes a dynamic config on that broker only", async () => {
    const read = await http().get('/brokers/1/configs');
    assert.equal(read.status, 200, JSON.stringify(read.body));
    assert.equal(byName(read.body.configs, 'log.cleaner.threads')?.source, 'DEFAULT_CONFIG');

    const set = await http()
      .patch('/brokers/1/configs')
      .send({ set: { 'log.cleaner.threads': '2' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const threads = byName(set.body.configs, 'log.cleaner.threads')!;
    assert.deepEqual(
      [threads.value, threads.source, threads.synonyms.map((s) => s.source)],
      ['2', 'DYNAMIC_BROKER_CONFIG', ['DYNAMIC_BROKER_CONFIG', 'DEFAULT_CONFIG']],
    );
    assert.equal(
      byName((await http().get('/brokers/2/configs')).body.configs, 'log.cleaner.threads')?.source,
      'DEFAULT_CONFIG',
      'broker 2 untouched',
    );
    const own = await http().get('/brokers/1/configs?includeDefaults=false');
    assert.deepEqual(
      own.body.configs.map((c: Config) => c.name),
      ['log.cleaner.threads'],
    );

    await http()
      .patch('/brokers/1/configs')
      .send({ delete: ['log.cleaner.threads'] })
      .expect(200);
    assert.deepEqual((await http().get('/brokers/1/configs?includeDefaults=false')).body.configs, []);
  });

  it('refuses the throttle rates (409, pointing to /throttles/rates); unknown broker 404; a static-only config 422 (42)', async () => {
    for (const key of [
      'leader.replication.throttled.rate',
      'follower.replication.throttled.rate',
      'replica.alter.log.dirs.io.max.bytes.per.second',
    ]) {
      const res = await http()
        .patch('/brokers/0/configs')
        .send({ set: { [key]: '1048576' } });
      expectProblem(res, 409, 'gateway-managed-config');
      assert.match(res.body.detail, /\/throttles\/rates/);
    }
    expectProblem(await http().get('/brokers/42/configs'), 404, 'broker-not-found');
    expectProblem(
      await http()
        .patch('/brokers/42/configs')
        .send({ set: { 'log.cleaner.threads': '2' } }),
      404,
      'broker-not-found',
    );
    expectProblem(
      await http()
        .patch('/brokers/0/configs')
        .send({ set: { 'log.dirs': '/tmp/x' } }),
      422,
      'invalid-request',
      42,
    );
    assert.deepEqual((await http().get('/brokers/0/configs?includeDefaults=false')).body.configs, []);
  });
});
