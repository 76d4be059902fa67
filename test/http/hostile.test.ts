// Hostile input, case by case (the property test in hostile-fuzz.test.ts covers the
// combinations): size, nesting, media types, unknown fields, ranges, array sizes and
// topic-name rules - each refused with a clear problem, and the cluster unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jsonNestingDepth } from '../../src/http/hostile-input.js';
import { createTopics, expectProblem, startGateway, type ClusterSnapshot, type Gateway } from './helpers.js';

let gw: Gateway;
let snap: ClusterSnapshot;

before(async () => {
  gw = await startGateway({ app: { bodyLimit: '64kb' } });
  await createTopics(gw, { name: 'orders', partitions: 2, replicationFactor: 2 });
  snap = await gw.snapshot();
});
after(() => gw?.close());

describe('refused before Kafka is asked, cluster unchanged', () => {
  const post = (path: string) => gw.http().post(path);

  it('413 for a body over the limit (never parsed)', async () => {
    const res = await post('/topics')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'big', configs: { 'x.y': 'a'.repeat(70_000) } }));
    expectProblem(res, 413, 'payload-too-large');
    await gw.assertUnchanged(snap);
  });

  it('400 json-too-deep for nesting beyond 32, even inside a valid-looking body', async () => {
    const deep = `{"name":"deep","configs":{"a":${'['.repeat(40)}${']'.repeat(40)}}}`;
    expectProblem(await post('/topics').set('Content-Type', 'application/json').send(deep), 400, 'json-too-deep');
    // Brackets inside strings do not count.
    const res = await post('/topics?validateOnly=true')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ name: 'strings', configs: { 'cleanup.policy': '['.repeat(100) } }));
    assert.notEqual(res.body.type, 'https://kafka-admin-gateway.dev/problems/json-too-deep');
    await gw.assertUnchanged(snap);
  });

  it('415 for a body that is not application/json, on every route with a body', async () => {
    for (const [ct, body] of [
      ['text/plain', '{"name":"t"}'],
      ['application/x-www-form-urlencoded', 'name=t'],
      ['application/json; charset=latin1', '{"name":"t"}'],
    ] as const) {
      expectProblem(await post('/topics').set('Content-Type', ct).send(body), 415, 'unsupported-media-type');
      expectProblem(await post('/topics/orders/partitions').set('Content-Type', ct).send(body), 415, 'unsupported-media-type');
    }
    // A body on DELETE, which takes none, is refused rather than ignored when it is not JSON.
    expectProblem(await gw.http().delete('/topics/orders').set('Content-Type', 'text/plain').send('x'), 415, 'unsupported-media-type');
    // No Content-Type at all.
    const raw = await post('/topics').set('Content-Type', '').send(Buffer.from('{"name":"t"}'));
    expectProblem(raw, 415, 'unsupported-media-type');
    await gw.assertUnchanged(snap);
  });

  it('400 for malformed JSON and non-object roots', async () => {
    expectProblem(await post('/topics').set('Content-Type', 'application/json').send('{"name":'), 400, 'malformed-json');
    expectProblem(await post('/topics').set('Content-Type', 'application/json').send('"orders"'), 400, 'malformed-json');
    await gw.assertUnchanged(snap);
  });

  it('400 for unknown fields, at the top and nested', async () => {
    const top = await post('/topics').send({ name: 't', partitions: 1, admin: true });
    expectProblem(top, 400, 'validation-failed');
    assert.ok(top.body.errors.some((e: { path: string }) => e.path === '/body/admin'));
    expectProblem(await post('/topics/orders/partitions').send({ count: 3, force: true }), 400, 'validation-failed');
    expectProblem(await post('/topics').send([{ name: 't', __proto__x: 1 }]), 400, 'validation-failed');
    await gw.assertUnchanged(snap);
  });

  it('400 for integers out of range: partitions, replication factor, counts, broker ids', async () => {
    for (const body of [
      { name: 't', partitions: 0 },
      { name: 't', partitions: 10_001 },
      { name: 't', partitions: 1.5 },
      { name: 't', partitions: 2 ** 53 },
      { name: 't', replicationFactor: 32_768 },
      { name: 't', assignments: [[-1]] },
      { name: 't', assignments: [[2 ** 31]] },
    ]) {
      expectProblem(await post('/topics').send(body), 400, 'validation-failed');
    }
    expectProblem(await post('/topics/orders/partitions').send({ count: 10_001 }), 400, 'validation-failed');
    expectProblem(await post('/topics/orders/partitions').send({ count: -3 }), 400, 'validation-failed');
    await gw.assertUnchanged(snap);
  });

  it('400 for arrays over their bounds', async () => {
    expectProblem(
      await post('/topics').send({ name: 't', assignments: [Array.from({ length: 129 }, (_, i) => i)] }),
      400,
      'validation-failed',
    );
    expectProblem(await post('/topics').send(Array.from({ length: 1001 }, (_, i) => ({ name: `t${i}` }))), 400, 'validation-failed');
    expectProblem(
      await post('/topics').send({ name: 't', configs: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, 'v'])) }),
      400,
      'validation-failed',
    );
    await gw.assertUnchanged(snap);
  });

  it('topic names: Kafka rules in the body and in the path', async () => {
    for (const name of ['', '.', '..', 'a b', 'a/b', 'ü', 'x'.repeat(250), 'a\u0000b']) {
      expectProblem(await post('/topics').send({ name }), 400, 'validation-failed');
    }
    for (const seg of ['..%2F..', 'a%20b', 'x'.repeat(250), '%C3%BC']) {
      const res = await gw.http().get(`/topics/${seg}`);
      assert.ok(res.status === 400 || res.status === 404, `${seg}: ${res.status}`);
      assert.match(res.headers['content-type'] ?? '', /problem\+json/);
    }
    // 249 characters is legal.
    const longest = 'x'.repeat(249);
    const res = await post('/topics?validateOnly=true').send({ name: longest, partitions: 1, replicationFactor: 1 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await gw.assertUnchanged(snap);
  });
});

describe('jsonNestingDepth', () => {
  const depth = (s: string) => jsonNestingDepth(Buffer.from(s));
  it('counts objects and arrays, skips strings and escapes', () => {
    assert.equal(depth('1'), 0);
    assert.equal(depth('{"a":[1,{"b":[]}]}'), 4);
    assert.equal(depth('{"a":"[[[[{{{{"}'), 1);
    assert.equal(depth('{"a":"\\"[[[["}'), 1);
    assert.equal(depth('['.repeat(1000)), 1000);
  });
});
