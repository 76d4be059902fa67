// Controller mutation quota numbers worked out BY HAND from Kafka's formulas
// (../shared/kafka-protocol/SEMANTICS.md section 3, KIP-599 as shipped), checked against the
// gateway over HTTP, in front of the simulator over TCP (issue 11 item 4).
//
// This file deliberately imports none of the quota code: not src/domain/token-bucket.ts, not
// src/domain/retry-after.ts, not the simulator's quota tables. The gateway's "kafka" policy, its
// gateway-side bucket and the simulator share that code, so a test that computed its
// expectations with it would pass whatever bug it had. Every expected number below is derived
// in the comment next to it from these rules alone:
//
//   burst B = window.num (11) x window.size.seconds (1) x rate; a new bucket starts full
//   refill: tokens = min(B, tokens + rate x elapsed_seconds)
//   cost: partitions created / deleted / added (new count - current)
//   strict (CreateTopics v6+, DeleteTopics v5+, CreatePartitions v3+): tokens < 0 -> reject
//     with 89, costing nothing; otherwise record the whole cost (however far below 0)
//   throttle_time_ms = round(-tokens / rate x 1000); validateOnly is charged (KRaft)
//   Retry-After = max(1, ceil(throttle_time_ms / 1000))                     (README, 429)
//   RateLimit-Policy: "<name>";q=<B>;w=<window seconds>
//   RateLimit: "<name>";r=<floor(max(0, tokens))>;t=<Retry-After when tokens < 0, else
//              ceil(seconds until the bucket is full)>
//
// Time is a ManualClock shared by the simulator and the gateway: nothing elapses unless the
// test advances it, so every number is exact.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { ManualClock } from '../../../src/sim/clock.js';
import { expectProblem, startGateway, type Gateway } from '../helpers.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

async function gateway(quota: Record<string, unknown> = {}): Promise<{ gw: Gateway; clock: ManualClock }> {
  const clock = new ManualClock();
  const gw = await startGateway({
    simulator: { brokers: 3, clock },
    app: { quota: { ...quota, now: () => clock.now(), sleep: async (ms: number) => clock.advance(ms) } },
  });
  open.push(gw);
  return { gw, clock };
}

const create = (gw: Gateway, name: string, partitions: number, query = '') =>
  gw.http().post(`/topics${query}`).send({ name, partitions, replicationFactor: 1 });

function throttled(res: Response, retryAfter: number, throttleTimeMs: number): void {
  expectProblem(res, 429, 'throttling-quota-exceeded', 89);
  assert.equal(res.headers['retry-after'], String(retryAfter), JSON.stringify(res.body));
  assert.equal(res.body.throttleTimeMs, throttleTimeMs, JSON.stringify(res.body));
}

function ok(res: Response, status: number): void {
  assert.equal(res.status, status, JSON.stringify(res.body));
}

describe('broker-side quota ("kafka" policy): rate 3/s, so B = 11 x 1 x 3 = 33', () => {
  it('creations, a partition increase, a deletion and a validateOnly creation, each number from the formulas', async () => {
    const { gw, clock } = await gateway();
    ok(
      await gw
        .http()
        .put('/quotas')
        .send({ entity: { clientId: null }, controllerMutationRate: 3 }),
      200,
    );

    // Full bucket 33 >= 0: recorded, 33 - 20 = 13.
    const h1 = await create(gw, 'h1', 20);
    ok(h1, 201);
    assert.equal(h1.headers['ratelimit-policy'], '"kafka";q=33;w=11');
    // 13 >= 0: recorded although it ends below zero, 13 - 20 = -7.
    ok(await create(gw, 'h2', 20), 201);

    // -7 < 0: refused. throttle = round(7 / 3 x 1000) = round(2333.33) = 2333 ms;
    // Retry-After = ceil(2.333) = 3; RateLimit r = 0, t = Retry-After = 3.
    const h3 = await create(gw, 'h3', 1);
    throttled(h3, 3, 2333);
    assert.equal(h3.headers.ratelimit, '"kafka";r=0;t=3');
    assert.equal((await gw.http().get('/topics/h3')).status, 404, 'a refused topic is not created');

    // +2000 ms: -7 + 3 x 2 = -1 < 0. throttle = round(1 / 3 x 1000) = 333; Retry-After = 1.
    clock.advance(2000);
    throttled(await create(gw, 'h3', 1), 1, 333);

    // +334 ms: -1 + 3 x 0.334 = 0.002 >= 0: recorded, 0.002 - 1 = -0.998.
    clock.advance(334);
    ok(await create(gw, 'h3', 1), 201);

    // A partition increase 20 -> 24 while at -0.998: refused,
    // throttle = round(0.998 / 3 x 1000) = round(332.67) = 333; Retry-After = 1.
    throttled(await gw.http().post('/topics/h1/partitions').send({ count: 24 }), 1, 333);

    // +20 s: min(33, -0.998 + 60) = 33 (full). The increase costs 24 - 20 = 4: 29.
    clock.advance(20_000);
    ok(await gw.http().post('/topics/h1/partitions').send({ count: 24 }), 200);
    // Deleting h2 costs its 20 partitions: 29 - 20 = 9.
    ok(await gw.http().delete('/topics/h2'), 204);
    // validateOnly is charged on KRaft: 9 >= 0, recorded: 9 - 10 = -1. Nothing is created.
    ok(await create(gw, 'h4', 10, '?validateOnly=true'), 200);
    assert.equal((await gw.http().get('/topics/h4')).status, 404);
    // So the next creation is refused: throttle = round(1 / 3 x 1000) = 333; Retry-After = 1.
    throttled(await create(gw, 'h4', 1), 1, 333);
  });
});

describe('gateway-side admission ("gateway" policy): rate 2/s, so B = 11 x 1 x 2 = 22', () => {
  it('RateLimit r and t after every answer, and the 429s, from the formulas', async () => {
    const { gw, clock } = await gateway({ config: { admission: { rate: 2, window: { windowNum: 11, windowSizeSeconds: 1 } } } });

    // 22 - 5 = 17: r = 17; full again in (22 - 17) / 2 = 2.5 s, so t = ceil(2.5) = 3.
    const g1 = await create(gw, 'g1', 5);
    ok(g1, 201);
    assert.equal(g1.headers['ratelimit-policy'], '"gateway";q=22;w=11');
    assert.equal(g1.headers.ratelimit, '"gateway";r=17;t=3');

    // 17 >= 0: 17 - 20 = -3. r = 0; t = Retry-After of round(3 / 2 x 1000) = 1500 ms = ceil(1.5) = 2.
    const g2 = await create(gw, 'g2', 20);
    ok(g2, 201);
    assert.equal(g2.headers.ratelimit, '"gateway";r=0;t=2');

    // -3 < 0: refused by the gateway before Kafka is asked: 1500 ms, Retry-After 2.
    const g3 = await create(gw, 'g3', 1);
    throttled(g3, 2, 1500);
    assert.equal(g3.headers.ratelimit, '"gateway";r=0;t=2');

    // +1000 ms: -3 + 2 = -1: round(1 / 2 x 1000) = 500 ms, Retry-After = max(1, ceil(0.5)) = 1.
    clock.advance(1000);
    throttled(await create(gw, 'g3', 1), 1, 500);

    // +500 ms: -1 + 1 = 0, not below zero: recorded, 0 - 1 = -1; r = 0, t = ceil(0.5) = 1.
    clock.advance(500);
    const g3b = await create(gw, 'g3', 1);
    ok(g3b, 201);
    assert.equal(g3b.headers.ratelimit, '"gateway";r=0;t=1');

    // +11.5 s: min(22, -1 + 23) = 22 (full). 22 - 2 = 20: r = 20, t = ceil(2 / 2) = 1.
    clock.advance(11_500);
    const g4 = await create(gw, 'g4', 2);
    ok(g4, 201);
    assert.equal(g4.headers.ratelimit, '"gateway";r=20;t=1');
  });
});
