// Who is charged (issue 4): each REST caller's mutations carry its own Kafka client id
// (KAFKA_CLIENT_ID_PATTERN), so a default client-id quota gives every caller its own
// broker-side bucket; and gateway-side admission, the same bucket inside the gateway.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { afterEach, describe, it } from 'node:test';
import { TokenStore } from '../../../src/http/auth/tokens.js';
import { ManualClock } from '../../../src/sim/index.js';
import { expectProblem, startGateway, type Gateway } from '../helpers.js';

const open: Gateway[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((g) => g.close()));
});

const TOKENS = { alice: 'alice-token-0123456789', bob: 'bob-token-0123456789', root: 'root-token-0123456789' } as const;
const tokenStore = (): TokenStore =>
  new TokenStore(
    Object.entries(TOKENS).map(([name, token]) => ({
      name,
      role: name === 'root' ? ('admin' as const) : ('operator' as const),
      sha256: createHash('sha256').update(token).digest(),
    })),
  );

async function gateway(quota: Record<string, unknown>): Promise<{ gw: Gateway; clock: ManualClock }> {
  const clock = new ManualClock();
  const gw = await startGateway({
    simulator: { brokers: 3, clock },
    app: {
      auth: { mode: 'enforced', tokens: tokenStore() },
      quota: { ...quota, now: () => clock.now(), sleep: async (ms: number) => clock.advance(ms) },
    },
  });
  open.push(gw);
  return { gw, clock };
}

const as = (gw: Gateway, who: keyof typeof TOKENS) => ({
  create: (name: string, partitions: number) =>
    gw.http().post('/topics').set('Authorization', `Bearer ${TOKENS[who]}`).send({ name, partitions, replicationFactor: 1 }),
  get: (path: string) => gw.http().get(path).set('Authorization', `Bearer ${TOKENS[who]}`),
  put: (path: string, body: object) => gw.http().put(path).set('Authorization', `Bearer ${TOKENS[who]}`).send(body),
});

describe('per-caller Kafka client ids (KAFKA_CLIENT_ID_PATTERN)', () => {
  it('each caller lands in its own broker bucket: alice exhausting hers leaves bob his', async () => {
    const { gw, clock } = await gateway({ config: { clientIdPattern: 'kafka-admin-gateway/{principal}' } });
    const root = as(gw, 'root');
    assert.equal((await root.put('/quotas', { entity: { clientId: null }, controllerMutationRate: 2 })).status, 200);

    const alice = as(gw, 'alice');
    const bob = as(gw, 'bob');
    assert.equal((await alice.create('alice-1', 30)).status, 201);
    const throttled = await alice.create('alice-2', 1);
    expectProblem(throttled, 429, 'throttling-quota-exceeded', 89);
    assert.equal(throttled.headers['retry-after'], '4');
    // Bob has not spent anything: his own full bucket.
    assert.equal((await bob.create('bob-1', 20)).status, 201);

    // The simulator keys buckets by Kafka's quota metric tags (user "", client id).
    const keys = gw.sim.mutationQuotas.bucketKeys().sort();
    assert.deepEqual(keys, [':kafka-admin-gateway/alice', ':kafka-admin-gateway/bob']);
    assert.equal(gw.sim.mutationQuotas.inspect(':kafka-admin-gateway/alice')?.tokens, -8);
    assert.equal(gw.sim.mutationQuotas.inspect(':kafka-admin-gateway/bob')?.tokens, 2);

    // A quota for alice's own client id overrides the default (Kafka precedence): 100/s.
    // Kafka keeps the bucket's tokens (-8) and refills them at the new rate: 80 ms.
    assert.equal(
      (await root.put('/quotas', { entity: { clientId: 'kafka-admin-gateway/alice' }, controllerMutationRate: 100 })).status,
      200,
    );
    const faster = await alice.create('alice-3', 1);
    expectProblem(faster, 429, 'throttling-quota-exceeded', 89);
    assert.equal(faster.body.throttleTimeMs, 80);
    assert.equal(faster.headers['ratelimit-policy'], '"kafka";q=1100;w=11');
    clock.advance(80);
    assert.equal((await alice.create('alice-3', 1)).status, 201);
  });

  it('without a pattern every caller shares the gateway client id (one bucket)', async () => {
    const { gw } = await gateway({});
    assert.equal((await as(gw, 'root').put('/quotas', { entity: { clientId: null }, controllerMutationRate: 2 })).status, 200);
    assert.equal((await as(gw, 'alice').create('shared-1', 30)).status, 201);
    expectProblem(await as(gw, 'bob').create('shared-2', 1), 429, 'throttling-quota-exceeded', 89);
    assert.deepEqual(gw.sim.mutationQuotas.bucketKeys(), [':kafka-admin-gateway']);
  });
});

describe('gateway-side admission (GATEWAY_MUTATION_RATE)', () => {
  it('refuses with the same 429 before Kafka is asked, per caller, with RateLimit headers', async () => {
    const { gw, clock } = await gateway({ config: { admission: { rate: 2, window: { windowNum: 11, windowSizeSeconds: 1 } } } });
    const alice = as(gw, 'alice');

    const first = await alice.create('gw-1', 30);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.headers['ratelimit-policy'], '"gateway";q=22;w=11');
    assert.equal(first.headers.ratelimit, '"gateway";r=0;t=4');

    const before = await as(gw, 'root').get('/topics');
    const second = await alice.create('gw-2', 1);
    expectProblem(second, 429, 'throttling-quota-exceeded', 89);
    assert.equal(second.headers['retry-after'], '4');
    assert.equal(second.body.throttleTimeMs, 4000);
    assert.match(second.body.detail, /gateway-side admission/);
    assert.deepEqual((await as(gw, 'root').get('/topics')).body, before.body, 'nothing created');
    // No broker quota is configured: Kafka's buckets were never touched by the refusal.
    assert.equal(gw.sim.mutationQuotas.bucketKeys().length, 0);

    // Bob has his own gateway bucket.
    assert.equal((await as(gw, 'bob').create('gw-bob', 5)).status, 201);

    // A topic Kafka refuses (already exists) costs nothing: refunded after Kafka answers.
    clock.advance(4000); // alice back at 0 tokens
    const exists = await alice.create('gw-1', 30);
    expectProblem(exists, 409, 'topic-already-exists', 36);
    // Still 0 tokens (not -30): 11 s until the bucket is full again.
    assert.equal(exists.headers.ratelimit, '"gateway";r=0;t=11');
    assert.equal((await alice.create('gw-3', 1)).status, 201);

    const m = await gw.metrics.registry.getSingleMetric('kafka_gateway_quota_rejections_total')?.get();
    assert.equal(m?.values.find((v) => v.labels.source === 'gateway' && v.labels.api === 'CreateTopics')?.value, 1);
  });
});
