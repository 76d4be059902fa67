// GET /topics/{name} with response validation off (as the gateway runs) sends each description's
// bytes and ETag made once (src/http/routes/topics.ts TopicAnswers). Its answers must be the
// whole way's: the same app built with response validation on (res.json, each answer checked
// against openapi.yaml) answers every variant alike, and a change the gateway makes shows at once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { appOverKafka } from './app-over-kafka.js';
import { createTopics, startGateway, type Gateway } from './helpers.js';

describe('GET /topics/{name} answers made once', () => {
  let gw: Gateway;
  let fast: ReturnType<typeof appOverKafka>;
  let whole: ReturnType<typeof appOverKafka>;
  // A protected topic (the state topic) is described as internal: a StateReadiness naming it.
  const stateTopic = { topic: 'gw-state', refresh: async () => undefined, health: () => ({ status: 'ok' as const }) };
  before(async () => {
    gw = await startGateway({ simulator: { brokers: 3 } });
    await createTopics(
      gw,
      { name: 'answers', partitions: 2, replicationFactor: 2 },
      { name: 'gw-state', partitions: 1, replicationFactor: 1 },
    );
    fast = appOverKafka({ kafka: gw.kafka, metrics: gw.metrics, validateResponses: false, stateTopic });
    whole = appOverKafka({ kafka: gw.kafka, metrics: gw.metrics, validateResponses: true, stateTopic });
  });
  after(async () => {
    await gw?.close();
  });

  const same = (a: request.Response, b: request.Response) => {
    assert.equal(a.status, b.status);
    assert.deepEqual(a.body, b.body);
    assert.equal(a.text, b.text, 'the same bytes');
    for (const h of ['content-type', 'etag', 'content-length']) assert.equal(a.headers[h], b.headers[h], h);
  };

  const variants: [string, (app: ReturnType<typeof appOverKafka>) => request.Test][] = [
    ['GET', (app) => request(app).get('/topics/answers')],
    ['GET again (the recent read answered again)', (app) => request(app).get('/topics/answers')],
    ['HEAD', (app) => request(app).head('/topics/answers')],
    ['GET of a protected topic (internal)', (app) => request(app).get('/topics/gw-state')],
    ['GET of an unknown topic (404)', (app) => request(app).get('/topics/none-such')],
  ];
  for (const [name, send] of variants) {
    it(`${name}: the same answer as the whole way`, async () => {
      same(await send(fast), await send(whole));
    });
  }

  it('If-None-Match with the ETag: 304, as the whole way', async () => {
    const first = await request(fast).get('/topics/answers');
    assert.equal(first.status, 200);
    assert.ok(first.headers.etag, 'an ETag');
    const [a, b] = [
      await request(fast).get('/topics/answers').set('if-none-match', first.headers.etag),
      await request(whole).get('/topics/answers').set('if-none-match', first.headers.etag),
    ];
    assert.equal(a.status, 304);
    assert.equal(b.status, 304);
    assert.equal(a.headers.etag, b.headers.etag);
  });

  it('a change the gateway makes shows in the next answer (a new description, new bytes)', async () => {
    const before = await request(fast).get('/topics/answers');
    assert.equal(before.body.partitions.length, 2);
    const grown = await request(fast).post('/topics/answers/partitions').send({ count: 3 });
    assert.ok(grown.status < 300, JSON.stringify(grown.body));
    const [a, b] = [await request(fast).get('/topics/answers'), await request(whole).get('/topics/answers')];
    assert.equal(a.body.partitions.length, 3);
    assert.notEqual(a.headers.etag, before.headers.etag);
    same(a, b);
  });
});
