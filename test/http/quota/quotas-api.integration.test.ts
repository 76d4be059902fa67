// GET / PUT / DELETE /quotas against the simulator (DescribeClientQuotas /
// AlterClientQuotas over TCP). After every 4xx, both the quotas and the topics are
// compared with their state before the request.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'supertest';
import { expectProblem, startGateway, type Gateway } from '../helpers.js';

let gw: Gateway;
before(async () => {
  gw = await startGateway({ simulator: { brokers: 3 } });
});
after(() => gw?.close());

const quotas = async (query = ''): Promise<unknown[]> => {
  const res = await gw.http().get(`/quotas${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.quotas;
};

async function put(body: unknown, query = ''): Promise<Response> {
  return gw
    .http()
    .put(`/quotas${query}`)
    .send(body as object);
}

/** Sends, expects the problem, checks quotas and topics are unchanged. */
async function rejected(send: () => Promise<Response>, status: number, slug: string): Promise<Response> {
  const [quotasBefore, clusterBefore] = [await quotas(), await gw.snapshot()];
  const res = await send();
  expectProblem(res, status, slug);
  assert.deepEqual(await quotas(), quotasBefore, 'a rejected request must leave the quotas unchanged');
  await gw.assertUnchanged(clusterBefore);
  return res;
}

describe('quota CRUD', () => {
  it('PUT sets every client quota key of an entity, GET filters, PUT replaces, DELETE removes', async () => {
    const alice = {
      entity: { user: 'alice' },
      controllerMutationRate: 2,
      producerByteRate: 1048576,
      consumerByteRate: 2097152,
      requestPercentage: 12.5,
    };
    const set = await put(alice);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, alice);

    assert.equal((await put({ entity: { user: 'alice', clientId: 'billing' }, controllerMutationRate: 5 })).status, 200);
    assert.equal((await put({ entity: { clientId: null }, controllerMutationRate: 1 })).status, 200);
    assert.equal((await put({ entity: { user: null }, consumerByteRate: 1000 })).status, 200);

    // Everything, users first (default first), then client ids.
    assert.deepEqual(await quotas(), [
      { entity: { user: null }, consumerByteRate: 1000 },
      alice,
      { entity: { user: 'alice', clientId: 'billing' }, controllerMutationRate: 5 },
      { entity: { clientId: null }, controllerMutationRate: 1 },
    ]);
    // user=alice: her user entity and her user+client-id entity; strict: the user entity alone.
    assert.deepEqual(await quotas('?user=alice'), [alice, { entity: { user: 'alice', clientId: 'billing' }, controllerMutationRate: 5 }]);
    assert.deepEqual(await quotas('?user=alice&strict=true'), [alice]);
    assert.deepEqual(await quotas('?clientId=billing'), [{ entity: { user: 'alice', clientId: 'billing' }, controllerMutationRate: 5 }]);
    assert.deepEqual(await quotas('?defaultClientId=true'), [{ entity: { clientId: null }, controllerMutationRate: 1 }]);
    assert.deepEqual(await quotas('?defaultUser=true'), [{ entity: { user: null }, consumerByteRate: 1000 }]);
    assert.deepEqual(await quotas('?user=nobody'), []);

    // PUT replaces: the keys not sent are removed.
    assert.equal((await put({ entity: { user: 'alice' }, controllerMutationRate: 3 })).status, 200);
    assert.deepEqual(await quotas('?user=alice&strict=true'), [{ entity: { user: 'alice' }, controllerMutationRate: 3 }]);

    // validateOnly changes nothing.
    const dry = await put({ entity: { user: 'alice' }, controllerMutationRate: 9 }, '?validateOnly=true');
    assert.equal(dry.status, 200);
    assert.deepEqual(await quotas('?user=alice&strict=true'), [{ entity: { user: 'alice' }, controllerMutationRate: 3 }]);

    // DELETE names exactly one entity: alice's user+client-id entity stays.
    assert.equal((await gw.http().delete('/quotas?user=alice')).status, 204);
    assert.deepEqual(await quotas('?user=alice'), [{ entity: { user: 'alice', clientId: 'billing' }, controllerMutationRate: 5 }]);
    assert.equal((await gw.http().delete('/quotas?user=alice&clientId=billing')).status, 204);
    assert.equal((await gw.http().delete('/quotas?defaultClientId=true')).status, 204);
    assert.equal((await gw.http().delete('/quotas?defaultUser=true')).status, 204);
    assert.deepEqual(await quotas(), []);
    // Idempotent.
    assert.equal((await gw.http().delete('/quotas?user=alice')).status, 204);
  });

  it('ip entities: connectionCreationRate per IP and for the default IP, listed after users and client ids', async () => {
    const one = { entity: { ip: '10.0.0.7' }, connectionCreationRate: 20 };
    const set = await put(one);
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, one);
    assert.equal((await put({ entity: { ip: null }, connectionCreationRate: 100 })).status, 200);
    assert.equal((await put({ entity: { ip: '2001:db8::1' }, connectionCreationRate: 5 })).status, 200);
    assert.equal((await put({ entity: { clientId: 'app' }, controllerMutationRate: 1 })).status, 200);
    assert.deepEqual(await quotas(), [
      { entity: { clientId: 'app' }, controllerMutationRate: 1 },
      { entity: { ip: null }, connectionCreationRate: 100 },
      { entity: { ip: '10.0.0.7' }, connectionCreationRate: 20 },
      { entity: { ip: '2001:db8::1' }, connectionCreationRate: 5 },
    ]);
    assert.deepEqual(await quotas('?ip=10.0.0.7'), [one]);
    assert.deepEqual(await quotas('?defaultIp=true'), [{ entity: { ip: null }, connectionCreationRate: 100 }]);
    assert.deepEqual(await quotas('?clientId=app'), [{ entity: { clientId: 'app' }, controllerMutationRate: 1 }]);
    // validateOnly changes nothing; PUT replaces the value.
    assert.equal((await put({ entity: { ip: '10.0.0.7' }, connectionCreationRate: 1 }, '?validateOnly=true')).status, 200);
    assert.deepEqual(await quotas('?ip=10.0.0.7'), [one]);
    assert.equal((await put({ entity: { ip: '10.0.0.7' }, connectionCreationRate: 30 })).status, 200);
    assert.deepEqual(await quotas('?ip=10.0.0.7'), [{ entity: { ip: '10.0.0.7' }, connectionCreationRate: 30 }]);
    for (const q of ['?ip=10.0.0.7', '?defaultIp=true', `?ip=${encodeURIComponent('2001:db8::1')}`, '?clientId=app']) {
      const del = await gw.http().delete(`/quotas${q}`);
      assert.equal(del.status, 204, `${q} ${JSON.stringify(del.body)}`);
    }
    assert.deepEqual(await quotas(), []);
  });
});

describe('bad quota input: 400, nothing changes', () => {
  before(async () => {
    assert.equal((await put({ entity: { user: 'bob' }, controllerMutationRate: 4 })).status, 200);
  });

  const badBodies: [string, unknown][] = [
    ['rate 0', { entity: { user: 'bob' }, controllerMutationRate: 0 }],
    ['negative rate', { entity: { user: 'bob' }, controllerMutationRate: -1 }],
    ['negative byte rate', { entity: { user: 'bob' }, producerByteRate: -5 }],
    ['fractional byte rate', { entity: { user: 'bob' }, producerByteRate: 1.5 }],
    ['rate as a string', { entity: { user: 'bob' }, controllerMutationRate: '2' }],
    ['unknown quota key', { entity: { user: 'bob' }, controllerMutationRate: 2, fetchRate: 3 }],
    ['Kafka key spelling', { entity: { user: 'bob' }, controller_mutation_rate: 2 }],
    ['no quota at all', { entity: { user: 'bob' } }],
    ['empty entity', { entity: {}, controllerMutationRate: 2 }],
    ['unknown entity type', { entity: { group: 'g' }, controllerMutationRate: 2 }],
    ['ip entity with a user/client-id key', { entity: { ip: '10.0.0.1' }, controllerMutationRate: 2 }],
    ['ip combined with user', { entity: { ip: '10.0.0.1', user: 'bob' }, connectionCreationRate: 2 }],
    ['ip combined with the default client id', { entity: { ip: null, clientId: null }, connectionCreationRate: 2 }],
    ['connectionCreationRate on a user', { entity: { user: 'bob' }, connectionCreationRate: 2 }],
    ['ip that is not an address', { entity: { ip: 'cafe' }, connectionCreationRate: 2 }],
    ['fractional connection rate', { entity: { ip: '10.0.0.1' }, connectionCreationRate: 1.5 }],
    ['connection rate 0', { entity: { ip: '10.0.0.1' }, connectionCreationRate: 0 }],
    ['empty user name', { entity: { user: '' }, controllerMutationRate: 2 }],
    ['control character in a name', { entity: { clientId: 'a\nb' }, controllerMutationRate: 2 }],
    ['entity name not a string', { entity: { user: 42 }, controllerMutationRate: 2 }],
    ['no entity', { controllerMutationRate: 2 }],
  ];
  for (const [what, body] of badBodies) {
    it(`PUT: ${what}`, async () => {
      const res = await rejected(() => put(body), 400, 'validation-failed');
      assert.ok(res.body.errors.length > 0);
    });
  }

  it('GET / DELETE: a name and the default flag of the same type', async () => {
    const get = await rejected(() => gw.http().get('/quotas?user=bob&defaultUser=true'), 400, 'validation-failed');
    assert.equal(get.body.errors[0].path, '/query/defaultUser');
    await rejected(() => gw.http().delete('/quotas?clientId=x&defaultClientId=true'), 400, 'validation-failed');
  });

  it('GET / DELETE: ip with user or client id, or not an address', async () => {
    const get = await rejected(() => gw.http().get('/quotas?ip=10.0.0.1&user=bob'), 400, 'validation-failed');
    assert.equal(get.body.errors[0].path, '/query/ip');
    await rejected(() => gw.http().delete('/quotas?defaultIp=true&defaultClientId=true'), 400, 'validation-failed');
    await rejected(() => gw.http().delete('/quotas?ip=10.0.0.1&defaultIp=true'), 400, 'validation-failed');
    await rejected(() => gw.http().delete('/quotas?ip=cafe'), 400, 'validation-failed');
  });

  it('DELETE without an entity, or with an empty name', async () => {
    await rejected(() => gw.http().delete('/quotas'), 400, 'validation-failed');
    await rejected(() => gw.http().delete('/quotas?user='), 400, 'validation-failed');
  });

  it('DELETE /topics without a name, or with a repeated one', async () => {
    await rejected(() => gw.http().delete('/topics'), 400, 'validation-failed');
    await rejected(() => gw.http().delete('/topics?name=a&name=a'), 400, 'validation-failed');
  });

  it('timeoutMs out of bounds', async () => {
    await rejected(
      () => gw.http().post('/topics?retryOnQuotaViolation=true&timeoutMs=300001').send({ name: 'never' }),
      400,
      'validation-failed',
    );
  });
});
