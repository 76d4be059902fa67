// A client generated from openapi.yaml the way a user would make one — openapi-typescript
// with its default flags, plus openapi-fetch — must compile (strict) and run the README's
// examples against the gateway (`npm start`'s embedded demo, as a child process).
// The program is written here as text because its import of the generated types only
// exists once this test has generated them (in node_modules/.cache, so that it resolves
// openapi-fetch from the project and nothing lands in the tree).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { spawnGateway, type GatewayProcess } from './gateway-process.js';

const DIR = resolve('node_modules/.cache/generated-client-test');
const OPENAPI_TS = resolve('node_modules/openapi-typescript/bin/cli.js');
const TSC = resolve('node_modules/typescript/bin/tsc');

// The README's curl examples (sections "Cluster and topics", "Reassignments",
// "Throttles as resources", "Controller mutation quotas"), through the typed client.
// Each step prints one JSON line: what was asked, the status, and what the test checks.
const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({ baseUrl: process.argv[2] });
const out = (step: string, response: Response, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ step, status: response.status, ...extra }));
// Parameters declared with style: form, explode: false (brokers=1,2) need the matching
// serializer; openapi-fetch's default is explode: true (name=a&name=b).
const commaSeparated = { array: { style: 'form', explode: false } } as const;

{
  const { data, response } = await client.GET('/cluster');
  out('cluster', response, { brokers: data?.brokers.length });
}
{
  const { data, response } = await client.GET('/topics');
  out('list topics', response, { hasOrders: data?.topics.some((t) => t.name === 'orders') });
}
{
  const { data, response } = await client.GET('/topics/{topic}', { params: { path: { topic: 'orders' } } });
  out('describe orders', response, { partitions: data?.partitions.length, leaderOf0: data?.partitions[0]?.leader });
}
{
  const { response } = await client.POST('/topics', {
    body: { name: 'clicks', partitions: 6, replicationFactor: 2, configs: { 'retention.ms': '86400000' } },
  });
  out('create clicks', response, { location: response.headers.get('location') });
}
{
  const { response } = await client.POST('/topics', { body: { name: 'pinned', assignments: [[0, 2], [1, 3], [2, 0]] } });
  out('create pinned', response);
}
{
  const { data, response } = await client.POST('/topics', {
    body: [
      { name: 'a1', partitions: 1, replicationFactor: 1 },
      { name: 'orders', partitions: 1, replicationFactor: 1 },
    ],
  });
  const items = data && 'items' in data ? data.items : [];
  out('create two', response, { itemStatuses: items.map((i) => i.status) });
}
{
  const { response } = await client.POST('/topics', {
    params: { query: { validateOnly: true } },
    body: { name: 'maybe', partitions: 3, replicationFactor: 3 },
  });
  out('validate only', response);
}
{
  const { response } = await client.POST('/topics/{topic}/partitions', { params: { path: { topic: 'clicks' } }, body: { count: 8 } });
  out('grow clicks', response);
}
{
  const { response } = await client.POST('/topics/{topic}/partitions', {
    params: { path: { topic: 'clicks' } },
    body: { count: 10, assignments: [[0, 1], [2, 3]] },
  });
  out('grow clicks placed', response);
}
{
  const { response } = await client.DELETE('/topics/{topic}', { params: { path: { topic: 'clicks' } } });
  out('delete clicks', response);
}
{
  const { error, response } = await client.POST('/topics/{topic}/partitions', { params: { path: { topic: 'orders' } }, body: { count: 2 } });
  out('shrink orders', response, { kafkaError: error?.kafkaError });
}
{
  const { data, response } = await client.POST('/reassignments', {
    body: { partitions: [{ topic: 'orders', partition: 0, replicas: [1, 2] }], throttle: 1048576, validateOnly: true },
  });
  out('plan', response, { planned: data && 'totals' in data ? data.totals.partitions : undefined });
}
let id: string | undefined;
{
  const { data, response } = await client.POST('/reassignments', {
    body: { partitions: [{ topic: 'orders', partition: 0, replicas: [1, 2] }], throttle: 1048576 },
  });
  id = data && 'id' in data ? data.id : undefined;
  out('reassign', response, { location: response.headers.get('location'), id });
}
{
  const { data, response } = await client.GET('/throttles');
  out('throttles', response, { owners: [...new Set(data?.rates.map((r) => r.owner))] });
}
if (id) {
  const { data, response } = await client.GET('/reassignments/{id}', { params: { path: { id } } });
  out('progress', response, { state: data?.state });
}
{
  const { response } = await client.PUT('/throttles/rates', {
    body: { rates: [{ broker: 1, leaderRate: 1048576, followerRate: 1048576 }], autoRemove: true, ttlSeconds: 3600 },
  });
  out('set rates', response);
}
{
  const { response } = await client.PUT('/throttles/replicas', {
    body: { replicas: [{ topic: 'orders', partition: 0, leader: [0], follower: [3] }, { topic: 'payments', follower: null }] },
  });
  out('set replicas', response);
}
{
  const { response } = await client.DELETE('/throttles/rates', { params: { query: { brokers: [1, 2] } }, querySerializer: commaSeparated });
  out('delete rates', response);
}
{
  const { response } = await client.DELETE('/throttles/replicas', { params: { query: { topics: ['orders'] } }, querySerializer: commaSeparated });
  out('delete replicas', response);
}
{
  const { response } = await client.POST('/partitions', { body: [{ topic: 'orders', count: 8 }, { topic: 'payments', count: 4 }] });
  out('grow two', response);
}
{
  const { response } = await client.DELETE('/topics', { params: { query: { name: ['a1', 'pinned'] } } });
  out('delete two', response);
}
{
  const { response } = await client.PUT('/quotas', { body: { entity: { clientId: null }, controllerMutationRate: 2 } });
  out('set quota', response);
}
{
  const { data, response } = await client.GET('/quotas');
  out('quotas', response, { entries: data?.quotas.length });
}
{
  const { response } = await client.POST('/topics', { body: { name: 'burst-1', partitions: 30, replicationFactor: 1 } });
  out('burst 1', response);
}
{
  const { error, response } = await client.POST('/topics', { body: { name: 'burst-2', partitions: 1, replicationFactor: 1 } });
  out('burst 2', response, { retryAfter: response.headers.get('retry-after'), kafkaError: error?.kafkaError });
}
{
  const { response } = await client.DELETE('/quotas', { params: { query: { defaultClientId: true } } });
  out('delete quota', response);
}
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    lib: ['ES2022', 'DOM'],
  },
  files: ['api.ts', 'readme-examples.ts'],
};

const run = promisify(execFile);
let gateway: GatewayProcess;

before(async () => {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  gateway = spawnGateway({});
});

after(async () => {
  gateway?.child.kill('SIGTERM');
  await gateway?.exited;
  rmSync(DIR, { recursive: true, force: true });
});

test('openapi-typescript (default flags) + openapi-fetch: compiles and runs the README examples', async () => {
  await run(process.execPath, [OPENAPI_TS, resolve('openapi.yaml'), '-o', join(DIR, 'api.ts')]);
  writeFileSync(join(DIR, 'readme-examples.ts'), PROGRAM);
  writeFileSync(join(DIR, 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
  writeFileSync(join(DIR, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  await run(process.execPath, [TSC, '-p', join(DIR, 'tsconfig.json')]).catch((e: { stdout?: string }) => {
    assert.fail(`the generated client does not compile:\n${e.stdout}`);
  });

  const url = await gateway.url;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(DIR, 'readme-examples.ts'), url], { cwd: DIR });
  const steps = new Map(
    stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { step: string; status: number; [k: string]: unknown })
      .map((s) => [s.step, s]),
  );
  const step = (name: string) => {
    const s = steps.get(name);
    assert.ok(s, `step ${name} did not run:\n${stdout}`);
    return s;
  };
  const expectStatus = (name: string, status: number) => assert.equal(step(name).status, status, JSON.stringify(step(name)));

  expectStatus('cluster', 200);
  assert.equal(step('cluster').brokers, 4);
  expectStatus('list topics', 200);
  assert.equal(step('list topics').hasOrders, true);
  expectStatus('describe orders', 200);
  assert.ok((step('describe orders').partitions as number) > 0);
  expectStatus('create clicks', 201);
  assert.equal(step('create clicks').location, '/topics/clicks');
  expectStatus('create pinned', 201);
  expectStatus('create two', 207);
  assert.deepEqual(step('create two').itemStatuses, [201, 409]);
  expectStatus('validate only', 200);
  expectStatus('grow clicks', 200);
  expectStatus('grow clicks placed', 200);
  expectStatus('delete clicks', 204);
  expectStatus('shrink orders', 422);
  assert.deepEqual(step('shrink orders').kafkaError, { name: 'INVALID_PARTITIONS', code: 37 });
  expectStatus('plan', 200);
  assert.equal(step('plan').planned, 1);
  expectStatus('reassign', 202);
  assert.match(String(step('reassign').location), /^\/reassignments\//);
  expectStatus('throttles', 200);
  expectStatus('progress', 200);
  expectStatus('set rates', 200);
  expectStatus('set replicas', 200);
  expectStatus('delete rates', 200);
  expectStatus('delete replicas', 200);
  assert.ok([200, 207].includes(step('grow two').status), JSON.stringify(step('grow two')));
  expectStatus('delete two', 200);
  expectStatus('set quota', 200);
  expectStatus('quotas', 200);
  assert.ok((step('quotas').entries as number) >= 1);
  expectStatus('burst 1', 201);
  expectStatus('burst 2', 429);
  assert.ok(Number(step('burst 2').retryAfter) >= 1, JSON.stringify(step('burst 2')));
  assert.deepEqual(step('burst 2').kafkaError, { name: 'THROTTLING_QUOTA_EXCEEDED', code: 89 });
  expectStatus('delete quota', 204);
});
