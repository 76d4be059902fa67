// /throttles answers are written by sendJson (src/http/json-slices.ts): large ones in slices,
// byte for byte what res.json sends. Here the threshold is lowered so that every answer takes
// the sliced path, and res.json is watched to show that it did.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'express';
import { SLICED_FROM_SETTING } from '../../src/http/json-slices.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';

let gw: ReassignGateway;
let jsonCalls = 0;
before(async () => {
  gw = await startReassignGateway({ simulator: { brokers: 3 } });
  await createTopics(gw, { name: 'ts', assignments: Array.from({ length: 30 }, (_, p) => [p % 3, (p + 1) % 3]) });
  // Counts res.json on this app's responses (every response's prototype).
  const proto = gw.app.response as Response;
  const json = proto.json;
  proto.json = function (this: Response, body: unknown) {
    jsonCalls++;
    return json.call(this, body);
  };
  const put = await gw
    .http()
    .put('/throttles/replicas')
    .send({
      replicas: Array.from({ length: 30 }, (_, p) => ({
        topic: 'ts',
        partition: p,
        leader: [p % 3, (p + 1) % 3],
        follower: [(p + 2) % 3],
      })),
    });
  assert.equal(put.status, 200, put.text);
  const rates = await gw
    .http()
    .put('/throttles/rates')
    .send({ rates: [0, 1, 2].map((broker) => ({ broker, leaderRate: 4096, followerRate: 4096 })) });
  assert.equal(rates.status, 200, rates.text);
});
after(async () => gw?.close());

/** The same request answered through res.json and in slices: status, text and headers; res.json not called when sliced. */
async function wholeAndSliced(
  ask: () => Promise<{ status: number; text: string; headers: Record<string, string> }>,
  normalize = (s: string) => s,
) {
  gw.app.set(SLICED_FROM_SETTING, undefined);
  const before = jsonCalls;
  const whole = await ask();
  assert.ok(jsonCalls > before, 'a small answer goes through res.json');
  gw.app.set(SLICED_FROM_SETTING, 1);
  let sliced: Awaited<ReturnType<typeof ask>>;
  const calls = jsonCalls;
  try {
    sliced = await ask();
  } finally {
    gw.app.set(SLICED_FROM_SETTING, undefined);
  }
  assert.equal(jsonCalls, calls, 'answered without res.json');
  assert.equal(whole.status, 200, whole.text);
  assert.equal(sliced.status, 200);
  assert.equal(normalize(sliced.text), normalize(whole.text));
  assert.match(sliced.headers['content-type'] ?? '', /^application\/json; charset=utf-8$/);
  for (const h of ['content-type', 'content-length', ...(normalize(whole.text) === whole.text ? ['etag'] : [])])
    assert.equal(sliced.headers[h], whole.headers[h], h);
  return JSON.parse(sliced.text);
}

describe('sliced answers of /throttles', () => {
  it('GET /throttles: the same bytes and headers', async () => {
    const body = await wholeAndSliced(() => gw.http().get('/throttles'));
    assert.equal(body.replicas.length, 1);
    assert.equal(body.replicas[0].gatewayEntries.leader.length, 60);
    assert.equal(body.replicas[0].gatewayEntries.follower.length, 30);
    assert.equal(body.rates.length, 3);
  });

  it('PUT /throttles/replicas and /throttles/rates: the same answer (but the new id)', async () => {
    const id = (s: string) => s.replace(/"id":"t-[^"]+"/, '"id":"t-?"');
    const replicas = await wholeAndSliced(
      () =>
        gw
          .http()
          .put('/throttles/replicas')
          .send({ replicas: [{ topic: 'ts', partition: 0, leader: [0] }] }),
      id,
    );
    assert.equal(replicas.throttles.replicas.length, 1);
    const rates = await wholeAndSliced(
      () =>
        gw
          .http()
          .put('/throttles/rates')
          .send({ rates: [{ broker: 0, leaderRate: 4096 }] }),
      id,
    );
    assert.equal(rates.throttles.rates.length, 3);
  });

  it('DELETE /throttles/replicas, /throttles/rates and /throttles/orphaned: the same bytes and headers', async () => {
    // Nothing named matches: each answers every throttle, unchanged.
    const replicas = await wholeAndSliced(() => gw.http().delete('/throttles/replicas?topics=none-such'));
    assert.equal(replicas.replicas.length, 1);
    const rates = await wholeAndSliced(() => gw.http().delete('/throttles/rates?brokers=7'));
    assert.equal(rates.rates.length, 3);
    const orphaned = await wholeAndSliced(() => gw.http().delete('/throttles/orphaned'));
    assert.equal(orphaned.dryRun, true);
  });
});
