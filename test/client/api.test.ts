// The shared API client's error handling (pure: a fake fetch returns canned HTTP answers).
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ApiError, createClient, formatBytes, formatDuration, optional } from '../../src/client/api.js';

const answer =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  async () =>
    new Response(body === undefined ? null : JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/problem+json', ...headers },
    });

/** The URL a fake fetch was called with (the client passes a string; a URL or Request is named by its href). */
const urlOf = (input: RequestInfo | URL): string => (typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);

/** The client sends JSON bodies as strings; anything else is a bug the test should name. */
function bodyText(init: RequestInit | undefined): string {
  if (typeof init?.body !== 'string') throw new Error(`expected a string body, got ${typeof init?.body}`);
  return init.body;
}

it('a 429 problem becomes an ApiError with its Retry-After and a sentence a person can read', async () => {
  const api = createClient({
    baseUrl: 'http://gw',
    fetch: answer(
      429,
      {
        type: 'https://kafka-admin-gateway.dev/problems/throttling-quota-exceeded',
        title: 'Throttling quota exceeded',
        status: 429,
        detail: 'Kafka throttled the request.',
        kafkaError: { name: 'THROTTLING_QUOTA_EXCEEDED', code: 89 },
      },
      { 'retry-after': '4' },
    ),
  });
  const err = await api.topics().catch((e: unknown) => e);
  assert.ok(err instanceof ApiError);
  assert.equal(err.status, 429);
  assert.equal(err.retryAfterSeconds, 4);
  assert.equal(
    err.message,
    '429 Throttling quota exceeded: Kafka throttled the request. (Kafka THROTTLING_QUOTA_EXCEEDED, code 89)\nRetry after 4 s.',
  );
});

it('sends the bearer token and JSON body; per-field errors are listed', async () => {
  let seen: { url: string; init: RequestInit | undefined } | undefined;
  const api = createClient({
    baseUrl: 'http://gw/',
    token: 'tok',
    fetch: async (url, init) => {
      seen = { url: urlOf(url), init };
      return new Response(
        JSON.stringify({
          title: 'Request validation failed',
          status: 400,
          errors: [{ path: '/body/throttle', message: 'must be >= 1024' }],
        }),
        { status: 400 },
      );
    },
  });
  const err = await api.patchReassignment('r 1', { throttle: 1 }).catch((e: unknown) => e);
  assert.equal(seen!.url, 'http://gw/reassignments/r%201');
  assert.equal((seen!.init!.headers as Record<string, string>).authorization, 'Bearer tok');
  assert.equal(seen!.init!.body, '{"throttle":1}');
  assert.ok(err instanceof ApiError);
  assert.match(err.message, /^400 Request validation failed\n {2}- \/body\/throttle: must be >= 1024$/);
});

it('optional(): a missing route is null, any other 404 is an error', async () => {
  const missing = createClient({
    baseUrl: '',
    fetch: answer(404, { type: 'https://kafka-admin-gateway.dev/problems/route-not-found', title: 'Not found', status: 404 }),
  });
  assert.equal(await missing.brokers(), null);
  assert.equal(await missing.plan({ goal: 'rebalance' }), null);
  const notFound = createClient({
    baseUrl: '',
    fetch: answer(404, {
      type: 'https://kafka-admin-gateway.dev/problems/reassignment-not-found',
      title: 'Reassignment not found',
      status: 404,
    }),
  });
  await assert.rejects(optional(notFound.reassignment('x')), (e: unknown) => e instanceof ApiError && !e.routeMissing);
});

it('formats bytes and durations', () => {
  assert.equal(formatBytes(0), '0 B');
  assert.equal(formatBytes(25165824), '24.0 MiB');
  assert.equal(formatBytes(null), '–');
  assert.equal(formatDuration(5), '5s');
  assert.equal(formatDuration(125), '2m05s');
  assert.equal(formatDuration(7322), '2h02m');
});

it("pages of partitions: the first with its filters, the next by following `next` on the client's own base", async () => {
  const seen: string[] = [];
  const api = createClient({
    baseUrl: 'http://proxy/gw/',
    fetch: async (url) => {
      seen.push(urlOf(url));
      const next = seen.length === 1 ? 'http://internal:8080/reassignments/r%201/partitions?state=moving&limit=1&cursor=abc' : null;
      return new Response(JSON.stringify({ items: [], next }), { status: 200 });
    },
  });
  const first = await api.reassignmentPartitions('r 1', { state: 'moving', limit: 1 });
  await api.nextPage(first.next!);
  assert.deepEqual(seen, [
    'http://proxy/gw/reassignments/r%201/partitions?state=moving&limit=1',
    'http://proxy/gw/reassignments/r%201/partitions?state=moving&limit=1&cursor=abc',
  ]);
});

it('pause and resume are PATCH {paused}', async () => {
  const bodies: unknown[] = [];
  const api = createClient({
    baseUrl: '',
    fetch: async (_url, init) => (bodies.push(JSON.parse(bodyText(init))), new Response('{}', { status: 200 })),
  });
  await api.pauseReassignment('r');
  await api.resumeReassignment('r');
  assert.deepEqual(bodies, [{ paused: true }, { paused: false }]);
});
