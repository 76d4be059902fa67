// Controller mutation quotas end to end (issue 4) against the simulator over TCP: Kafka's
// 89 answered 429 with the Retry-After the KIP-599 rules give, per-topic answers (207),
// retryOnQuotaViolation, deletions and partition increases charged by partition.
//
// Time: the simulator runs on a ManualClock, and the gateway's quota clock and its
// retryOnQuotaViolation sleep are injected to use (and advance) the same clock, so every
// throttle below is exact and no test waits in real time.
import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { ManualClock } from '../../../src/sim/index.js';
import { expectProblem, startGateway, type Gateway } from '../helpers.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});
after(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

interface Setup {
  gw: Gateway;
  clock: ManualClock;
  /** Total time the gateway slept (retryOnQuotaViolation). */
  slept: () => number;
}

async function setup(): Promise<Setup> {
  const clock = new ManualClock();
  let slept = 0;
  const gw = await startGateway({
    simulator: { brokers: 3, clock },
    app: {
      quota: {
        now: () => clock.now(),
        sleep: async (ms) => {
          slept += ms;
          clock.advance(ms);
        },
      },
    },
  });
  open.push(gw);
  return { gw, clock, slept: () => slept };
}

/** PUT /quotas: the default client-id entity gets `rate` partition mutations/s (burst 11 x rate). */
async function defaultClientQuota(gw: Gateway, rate: number): Promise<void> {
  const res = await gw
    .http()
    .put('/quotas')
    .send({ entity: { clientId: null }, controllerMutationRate: rate });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

async function create(gw: Gateway, name: string, partitions: number, query = ''): Promise<Response> {
  return gw.http().post(`/topics${query}`).send({ name, partitions, replicationFactor: 1 });
}

function expectThrottled(res: Response, retryAfter: number, throttleTimeMs: number): void {
  expectProblem(res, 429, 'throttling-quota-exceeded', 89);
  assert.equal(res.headers['retry-after'], String(retryAfter), JSON.stringify(res.body));
  assert.equal(res.body.throttleTimeMs, throttleTimeMs);
}

async function metric(gw: Gateway, name: string, labels: Record<string, string>): Promise<number> {
  const m = await gw.metrics.registry.getSingleMetric(name)?.get();
  const v = m?.values.find((x) => Object.entries(labels).every(([k, val]) => x.labels[k] === val));
  return v?.value ?? 0;
}

describe('429 for THROTTLING_QUOTA_EXCEEDED (default client-id quota 2/s, burst 22)', () => {
  it('a 30-partition topic is created; the next one gets 429 Retry-After 4 and succeeds after 4 s', async () => {
    const { gw, clock } = await setup();
    await defaultClientQuota(gw, 2);

    const first = await create(gw, 'quota-a', 30);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    // The policy Kafka applies to this client id (cached DescribeClientQuotas): 2/s x 11 s.
    assert.equal(first.headers['ratelimit-policy'], '"kafka";q=22;w=11');

    // Bucket 22 - 30 = -8 tokens: throttle = 8 / 2 s = 4000 ms.
    const before = await gw.snapshot();
    const second = await create(gw, 'quota-b', 1);
    expectThrottled(second, 4, 4000);
    assert.equal(second.headers.ratelimit, '"kafka";r=0;t=4');
    await gw.assertUnchanged(before);

    // 1 ms before the bucket is back at zero it still refuses, rounded up to 1 s.
    clock.advance(3999);
    expectThrottled(await create(gw, 'quota-b', 1), 1, 1);
    await gw.assertUnchanged(before);

    clock.advance(1);
    const third = await create(gw, 'quota-b', 1);
    assert.equal(third.status, 201, JSON.stringify(third.body));
    assert.equal(await metric(gw, 'kafka_gateway_quota_http_429_total', { api: 'CreateTopics' }), 2);
    assert.equal(await metric(gw, 'kafka_gateway_quota_rejections_total', { api: 'CreateTopics', source: 'broker' }), 2);
  });

  it('one batch, partial success: 207, each throttled topic with its own 429 and wait', async () => {
    const { gw } = await setup();
    await defaultClientQuota(gw, 2);
    const res = await gw
      .http()
      .post('/topics')
      .send([
        { name: 'batch-a', partitions: 30, replicationFactor: 1 },
        { name: 'batch-b', partitions: 2, replicationFactor: 1 },
        { name: 'batch-c', partitions: 3, replicationFactor: 1 },
      ]);
    assert.equal(res.status, 207, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.items.map((i: { name: string; status: number }) => [i.name, i.status]),
      [
        ['batch-a', 201],
        ['batch-b', 429],
        ['batch-c', 429],
      ],
    );
    for (const item of res.body.items.slice(1)) {
      assert.equal(item.problem.kafkaError.code, 89);
      assert.equal(item.problem.throttleTimeMs, 4000);
    }
    assert.equal((await gw.http().get('/topics/batch-a')).status, 200);
    assert.equal((await gw.http().get('/topics/batch-b')).status, 404);
    assert.equal((await gw.http().get('/topics/batch-c')).status, 404);

    // Every topic throttled: the batch is a 429 problem with the items and the longest wait.
    const before = await gw.snapshot();
    const all = await gw
      .http()
      .post('/topics')
      .send([
        { name: 'batch-b', partitions: 2 },
        { name: 'batch-c', partitions: 3 },
      ]);
    expectThrottled(all, 4, 4000);
    assert.equal(all.body.items.length, 2);
    await gw.assertUnchanged(before);
  });
});

describe('retryOnQuotaViolation', () => {
  it('waits the throttle and re-sends only the throttled topics until they succeed', async () => {
    const { gw, clock, slept } = await setup();
    await defaultClientQuota(gw, 2);
    assert.equal((await create(gw, 'retry-big', 30)).status, 201); // bucket at -8
    const start = clock.now();

    const res = await gw
      .http()
      .post('/topics?retryOnQuotaViolation=true')
      .send([
        { name: 'retry-x', partitions: 1, replicationFactor: 1 },
        { name: 'retry-y', partitions: 1, replicationFactor: 1 },
      ]);
    // Round 1: both refused (4000 ms). Round 2 after 4 s: x admitted at 0 tokens (-> -1), y
    // refused (500 ms). Round 3 after 0.5 s: y admitted.
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.items.map((i: { status: number }) => i.status),
      [201, 201],
    );
    assert.equal(slept(), 4500);
    assert.equal(clock.now() - start, 4500);
    assert.equal(await metric(gw, 'kafka_gateway_quota_items_resent_total', { api: 'CreateTopics' }), 3);
  });

  it('does not wait past timeoutMs: answers 429 at once with the whole wait', async () => {
    const { gw, slept } = await setup();
    await defaultClientQuota(gw, 2);
    assert.equal((await create(gw, 'deadline-big', 30)).status, 201);
    const before = await gw.snapshot();
    const res = await create(gw, 'deadline-x', 1, '?retryOnQuotaViolation=true&timeoutMs=3999');
    expectThrottled(res, 4, 4000);
    assert.equal(slept(), 0);
    await gw.assertUnchanged(before);
  });

  it('answers the wait that remains when the deadline ends the retries', async () => {
    const { gw, slept } = await setup();
    await defaultClientQuota(gw, 2);
    assert.equal((await create(gw, 'remain-big', 30)).status, 201);
    const res = await gw
      .http()
      .post('/topics?retryOnQuotaViolation=true&timeoutMs=4200')
      .send([
        { name: 'remain-x', partitions: 1, replicationFactor: 1 },
        { name: 'remain-y', partitions: 1, replicationFactor: 1 },
      ]);
    // After 4 s x goes through; y would need 500 ms more, beyond the 4200 ms budget.
    assert.equal(res.status, 207, JSON.stringify(res.body));
    assert.equal(slept(), 4000);
    const [x, y] = res.body.items;
    assert.equal(x.status, 201);
    assert.equal(y.status, 429);
    assert.equal(y.problem.throttleTimeMs, 500);
  });

  it('is off by default', async () => {
    const { gw, slept } = await setup();
    await defaultClientQuota(gw, 2);
    assert.equal((await create(gw, 'off-big', 30)).status, 201);
    expectThrottled(await create(gw, 'off-x', 1), 4, 4000);
    assert.equal(slept(), 0);
  });
});

describe('deletions and partition increases are charged by partition', () => {
  it('DELETE /topics/{topic} of 30 partitions drains the bucket; the next deletion is 429 for 4 s', async () => {
    const { gw, clock } = await setup();
    // Created before the quota exists: only the deletions are charged.
    assert.equal((await create(gw, 'del-big', 30)).status, 201);
    assert.equal((await create(gw, 'del-small', 1)).status, 201);
    await defaultClientQuota(gw, 2);

    assert.equal((await gw.http().delete('/topics/del-big')).status, 204);
    const before = await gw.snapshot();
    expectThrottled(await gw.http().delete('/topics/del-small'), 4, 4000);
    await gw.assertUnchanged(before);
    clock.advance(4000);
    assert.equal((await gw.http().delete('/topics/del-small')).status, 204);
  });

  it('DELETE /topics?name=..&name=..: per-topic answers, 207 when they differ', async () => {
    const { gw } = await setup();
    for (const [name, n] of [
      ['md-a', 30],
      ['md-b', 1],
      ['md-c', 2],
    ] as const)
      assert.equal((await create(gw, name, n)).status, 201);
    await defaultClientQuota(gw, 2);

    const res = await gw.http().delete('/topics?name=md-a&name=md-b&name=md-nope');
    assert.equal(res.status, 207, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.items.map((i: { name: string; status: number }) => [i.name, i.status]),
      // An unknown topic is answered 404 and charged nothing, as Kafka does.
      [
        ['md-a', 200],
        ['md-b', 429],
        ['md-nope', 404],
      ],
    );
    assert.equal(res.body.items[1].problem.throttleTimeMs, 4000);
    const names = (await gw.http().get('/topics')).body.topics.map((t: { name: string }) => t.name);
    assert.deepEqual(
      names.filter((n: string) => n.startsWith('md-')),
      ['md-b', 'md-c'],
    );
  });

  it('POST /topics/{topic}/partitions and POST /partitions charge the partitions added', async () => {
    const { gw, clock } = await setup();
    assert.equal((await create(gw, 'grow-a', 1)).status, 201);
    assert.equal((await create(gw, 'grow-b', 1)).status, 201);
    await defaultClientQuota(gw, 2);

    const grown = await gw.http().post('/topics/grow-a/partitions').send({ count: 31 }); // +30
    assert.equal(grown.status, 200, JSON.stringify(grown.body));

    const before = await gw.snapshot();
    const single = await gw.http().post('/topics/grow-b/partitions').send({ count: 2 });
    expectThrottled(single, 4, 4000);
    const batch = await gw
      .http()
      .post('/partitions')
      .send([
        { topic: 'grow-b', count: 2 },
        { topic: 'grow-a', count: 32 },
      ]);
    expectThrottled(batch, 4, 4000);
    assert.deepEqual(
      batch.body.items.map((i: { status: number }) => i.status),
      [429, 429],
    );
    await gw.assertUnchanged(before);

    clock.advance(4000);
    const ok = await gw
      .http()
      .post('/partitions')
      .send([{ topic: 'grow-b', count: 3 }]);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(ok.body, { items: [{ name: 'grow-b', status: 200, partitions: 3, validateOnly: false }] });
    assert.equal((await gw.http().get('/topics/grow-b')).body.partitions.length, 3);
  });
});
