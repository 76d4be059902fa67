// GET /topics/{name} answered again to callers within TOPIC_READ_MAX_AGE_MS (TopicService over
// RecentReadsByKey): pollers share one read of Kafka, and a change this gateway made shows at
// once. Against the simulator over TCP. The age here is a minute, so that what is answered again
// does not depend on how fast the machine is; its expiry is tested with a clock in
// test/kafka/recent-read.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { TopicConfigService } from '../../src/services/configs.js';
import { appOverKafka } from './app-over-kafka.js';
import { startGateway, type Gateway } from './helpers.js';

/** Kafka requests of `api` sent so far. */
async function sent(gw: Gateway, api: string): Promise<number> {
  const m = await gw.metrics.registry.getSingleMetric('kafka_gateway_kafka_requests_total')!.get();
  return m.values.filter((v) => v.labels.api === api).reduce((n, v) => n + v.value, 0);
}

describe('GET /topics/{name}, answered again', () => {
  let gw: Gateway;
  let http: () => ReturnType<typeof request>;
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 3 } });
    // An app over the same Kafka layer with the recent descriptions and the topic configs routes on.
    const app = appOverKafka({
      kafka: gw.kafka,
      metrics: gw.metrics,
      validateResponses: true,
      topicReadMaxAgeMs: 60_000,
      configs: new TopicConfigService(gw.kafka as ConstructorParameters<typeof TopicConfigService>[0]),
    });
    http = () => request(app);
    assert.equal((await http().post('/topics').send({ name: 'polled', partitions: 2, replicationFactor: 2 })).status, 201);
  });
  after(async () => {
    await gw?.close();
  });

  it('callers within the age share one read: one Metadata and one DescribeConfigs for three GETs', async () => {
    const first = await http().get('/topics/polled');
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const [metadata, configs] = [await sent(gw, 'Metadata'), await sent(gw, 'DescribeConfigs')];
    const again = await Promise.all([http().get('/topics/polled'), http().get('/topics/polled')]);
    for (const r of again) assert.deepEqual([r.status, r.body], [200, first.body]);
    assert.deepEqual([await sent(gw, 'Metadata'), await sent(gw, 'DescribeConfigs')], [metadata, configs]);
  });

  it('a change made elsewhere shows once the age is over, not before: the answer is the read it shares', async () => {
    const before = await http().get('/topics/polled');
    gw.sim.model.createPartitions('polled', 3);
    const after = await http().get('/topics/polled');
    assert.equal(after.body.partitions.length, before.body.partitions.length, 'answered again');
    // Past the age (a gateway with none): Kafka's answer.
    assert.equal((await gw.http().get('/topics/polled')).body.partitions.length, 3);
  });

  it("this gateway's own changes show at once: partitions, configs", async () => {
    const grown = await http().post('/topics/polled/partitions').send({ count: 4 });
    assert.equal(grown.status, 200, JSON.stringify(grown.body));
    assert.equal((await http().get('/topics/polled')).body.partitions.length, 4);
    const set = await http()
      .patch('/topics/polled/configs')
      .send({ set: { 'retention.ms': '123456' } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const configs = (await http().get('/topics/polled')).body.configs as { name: string; value: string }[];
    assert.equal(configs.find((c) => c.name === 'retention.ms')?.value, '123456');
  });

  it('an unknown topic is not answered again: created since, it is found', async () => {
    assert.equal((await http().get('/topics/late')).status, 404);
    gw.sim.model.createTopic({ name: 'late', assignments: [{ partition: 0, brokerIds: [0] }] });
    assert.equal((await http().get('/topics/late')).status, 200);
  });
});
