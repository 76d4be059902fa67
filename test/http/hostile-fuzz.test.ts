// Property-based hostile input against EVERY operation of openapi.yaml (read at test
// time, so routes added later are fuzzed too), through the real HTTP stack, the real
// Kafka layer and the simulator. Requests are generated from each operation's own
// schemas, then often mutated (unknown fields, wrong types, missing fields, extreme
// numbers, deep nesting, garbage, wrong media types, bad credentials).
// Properties, for every request:
//  - the gateway answers (no crash, no hang) and stays healthy;
//  - no 5xx except 502/503 carrying a Kafka error (kafkaError or kafka-* type);
//  - every error is application/problem+json;
//  - after any 4xx the cluster is exactly as before (simulator model + every
//    parameterless GET of the API).
// Bounded: 400 runs; a ManualClock keeps time-driven state (reassignments, quota
// windows) still, so "unchanged" is exact.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, it } from 'node:test';
import fc from 'fast-check';
import { PUBLIC, type OperationAccess } from '../../src/http/auth/roles.js';
import { loadSpec } from '../../src/http/spec.js';
import { createReassignmentChangeFeed } from '../../src/events/reassignment-changes.js';
import { loadWebhookConfig } from '../../src/events/webhook-config.js';
import { WebhookService } from '../../src/events/webhook-service.js';
import { appOverKafka } from './app-over-kafka.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { createReassignmentRuntime, loadReassignmentConfig } from '../../src/reconcile/index.js';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { operationParameters, requestBodySchema, resolveSchema, roleTokens, specOperations, type RoleTokens } from './auth-helpers.js';
import { FAST_KAFKA_ENV } from './helpers.js';

type Schema = Record<string, unknown>;

const RUNS = 400;
const TOPIC_POOL = ['fz-a', 'fz-b', 'fz-c', 'orders', 'payments'];
const TOPIC_NAME_PATTERN = (loadSpec().document.components as { schemas: { TopicName: { pattern: string } } }).schemas.TopicName.pattern;

let sim: Simulator;
let kafka: PlatformaticKafkaGateway;
let server: Server;
let base: string;
let tokens: RoleTokens;

before(async () => {
  tokens = roleTokens();
  // The app as production builds it: every feature mounted, so every route in the spec
  // has its handler. The reconciler loop is not started and the clock is manual, so
  // nothing changes between requests on its own.
  const clock = new ManualClock(Date.UTC(2024, 0, 1));
  sim = await startSimulator({ brokers: 3, clock });
  const metrics = createMetrics({ defaultMetrics: false });
  kafka = createKafkaGateway(parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }), {
    onKafkaRequest: metrics.onKafkaRequest,
  });
  const reassignments = createReassignmentRuntime({ kafka, config: loadReassignmentConfig({}), now: () => clock.now() });
  // As main.ts wires it: the change feed and webhooks too (every operation of the contract answers).
  const changes = createReassignmentChangeFeed(reassignments.store);
  const webhooks = new WebhookService({ store: reassignments.store, changes, config: loadWebhookConfig({}) });
  const app = appOverKafka({ kafka, metrics, validateResponses: true, auth: tokens.auth, reassignments, changes, webhooks });
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  for (const name of ['orders', 'payments']) {
    const res = await send({
      method: 'POST',
      path: '/topics',
      body: JSON.stringify({ name, partitions: 3, replicationFactor: 2 }),
      contentType: 'application/json',
      auth: 'admin',
    });
    assert.equal(res.status, 201);
  }
});
after(async () => {
  await new Promise<void>((r) => server?.close(() => r()));
  server?.closeAllConnections();
  await kafka?.close().catch(() => undefined);
  await sim?.close();
});

// ------------------------------------------------------------------ generators

function fromSchema(schema: unknown, depth = 0): fc.Arbitrary<unknown> {
  const s = resolveSchema(schema);
  if (depth > 6) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
  for (const k of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(s[k])) return fc.oneof(...(s[k] as unknown[]).map((sub) => fromSchema(sub, depth + 1)));
  }
  if (Array.isArray(s.allOf)) return fromSchema(s.allOf[0], depth + 1);
  const types = Array.isArray(s.type) ? (s.type as string[]) : [s.type as string | undefined];
  if (types.length > 1) return fc.oneof(...types.map((t) => fromSchema({ ...s, type: t }, depth)));
  switch (types[0]) {
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'integer':
    case 'number': {
      const min =
        typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? Math.floor(s.exclusiveMinimum) + 1 : -1000;
      const max =
        typeof s.maximum === 'number' ? s.maximum : typeof s.exclusiveMaximum === 'number' ? Math.ceil(s.exclusiveMaximum) - 1 : 1000;
      // Mostly small values (cheap for the simulator), sometimes the bounds.
      return fc.oneof(
        { weight: 8, arbitrary: fc.integer({ min, max: Math.min(max, min + 3) }) },
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
        { weight: 1, arbitrary: fc.integer({ min, max: Math.min(max, min + 100) }) },
      );
    }
    case 'string': {
      if (s.pattern === TOPIC_NAME_PATTERN) return fc.constantFrom(...TOPIC_POOL);
      if (typeof s.pattern === 'string') {
        try {
          return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= 300);
        } catch {
          /* fall through */
        }
      }
      return fc.string({ minLength: (s.minLength as number) ?? 0, maxLength: Math.min((s.maxLength as number) ?? 20, 20) });
    }
    case 'array': {
      const minLength = (s.minItems as number) ?? 0;
      const constraints = { minLength, maxLength: Math.max(minLength, Math.min((s.maxItems as number) ?? 3, minLength + 3)) };
      const items = fromSchema(s.items, depth + 1);
      return s.uniqueItems ? fc.uniqueArray(items, { ...constraints, selector: (v) => JSON.stringify(v) }) : fc.array(items, constraints);
    }
    case 'object':
    default: {
      const props = (s.properties as Record<string, unknown>) ?? {};
      // dependentSchemas { a: { properties: { b: false } } }: "a excludes b" - honoured so valid-ish stays valid.
      const excludes = Object.entries((s.dependentSchemas as Record<string, Schema>) ?? {}).map(
        ([k, d]) => [k, Object.keys((d.properties as Schema) ?? {}).filter((p) => (d.properties as Schema)[p] === false)] as const,
      );
      const record = fc
        .record(Object.fromEntries(Object.entries(props).map(([k, v]) => [k, fromSchema(v, depth + 1)])), {
          requiredKeys: ((s.required as string[]) ?? []).filter((k) => k in props),
        })
        .map((o) => {
          const out: Record<string, unknown> = { ...o };
          for (const [k, banned] of excludes) if (k in out) for (const b of banned) delete out[b];
          return out;
        });
      if (typeof s.additionalProperties === 'object') {
        // Maps (topic configs): mostly real config names and values, so some requests succeed.
        const key = fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('cleanup.policy', 'retention.ms', 'min.insync.replicas') },
          { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }) },
        );
        const value = fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom('compact', 'delete', '1', '60000') },
          { weight: 1, arbitrary: fromSchema(s.additionalProperties, depth + 1) },
        );
        return fc.tuple(record, fc.dictionary(key, value, { maxKeys: 2 })).map(([r, d]) => ({ ...d, ...r }));
      }
      return record;
    }
  }
}

const weird = fc.oneof(
  fc.constantFrom(
    null,
    true,
    -1,
    0,
    1.5,
    2 ** 31,
    2 ** 53 + 2,
    -(2 ** 63),
    1e308,
    '',
    ' ',
    'x'.repeat(5000),
    '\u0000',
    '../../etc',
    '💥',
    [],
    {},
    [[[]]],
    { $ref: '#/x' },
    { __proto__: { admin: true } },
  ),
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.array(fc.anything(), { maxLength: 3 }),
);

function deepNest(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

type Body = { raw: string; contentType: string; mutated: boolean } | undefined;

/** A body: valid-ish from the schema, or mutated, or not JSON at all. */
function bodyFor(schema: Schema | undefined): fc.Arbitrary<Body> {
  const valid = schema ? fromSchema(schema) : fc.constant({});
  const json = (v: unknown, mutated = true): Body => ({ raw: JSON.stringify(v) ?? 'null', contentType: 'application/json', mutated });
  const mutateObject = (v: unknown, f: (o: Record<string, unknown>) => void): unknown => {
    const target = Array.isArray(v) ? v[0] : v;
    if (target && typeof target === 'object' && !Array.isArray(target)) f(target as Record<string, unknown>);
    return v;
  };
  return fc.oneof(
    { weight: 6, arbitrary: valid.map((v) => json(v, false)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(valid, fc.string({ minLength: 1, maxLength: 10 }), weird)
        .map(([v, k, w]) => json(mutateObject(v, (o) => (o[`x-${k}`] = w)))),
    },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, fc.nat(), weird).map(([v, i, w]) =>
        json(
          mutateObject(v, (o) => {
            const keys = Object.keys(o);
            if (keys.length) o[keys[i % keys.length]] = w;
          }),
        ),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat()).map(([v, i]) =>
        json(
          mutateObject(v, (o) => {
            const keys = Object.keys(o);
            if (keys.length) delete o[keys[i % keys.length]];
          }),
        ),
      ),
    },
    { weight: 1, arbitrary: weird.map(json) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((raw) => ({ raw, contentType: 'application/json', mutated: true })) },
    {
      weight: 1,
      arbitrary: fc.integer({ min: 33, max: 200 }).map((d) => ({ raw: deepNest(d), contentType: 'application/json', mutated: true })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          valid,
          fc.constantFrom(
            'text/plain',
            'application/x-www-form-urlencoded',
            'application/xml',
            'multipart/form-data; boundary=x',
            'application/json; charset=latin1',
          ),
        )
        .map(([v, contentType]) => ({ raw: JSON.stringify(v) ?? '', contentType, mutated: true })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

function paramValue(schema: Schema): fc.Arbitrary<string> {
  const good = fromSchema(schema).map(String);
  const hostile = fc.constantFrom(
    '..',
    '.',
    '%2F',
    'a%00b',
    'x'.repeat(300),
    '-1',
    '99999999999999999999',
    'NaN',
    '💥',
    '%',
    '%%',
    'a/b',
    ' ',
  );
  return fc.oneof(
    { weight: 4, arbitrary: good },
    { weight: 1, arbitrary: hostile },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  );
}

interface Req {
  method: string;
  /** The operation's path template (for the coverage report). */
  route?: string;
  /** False when the body was generated from the schema without mutation. */
  mutated?: boolean;
  path: string;
  body?: string;
  contentType?: string;
  auth: 'admin' | 'viewer' | 'none' | 'wrong';
}

function requestFor(op: OperationAccess): fc.Arbitrary<Req> {
  const params = operationParameters(op);
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const hasBody = requestBodySchema(op) !== undefined || !['GET', 'DELETE'].includes(op.method);
  const encode = (v: string) => (/%/.test(v) && /^[%0-9A-Fa-f]*$/.test(v.replace(/%[0-9A-Fa-f]{2}/g, '')) ? v : encodeURIComponent(v));
  const queryValue = (schema: Schema) => fromSchema(schema).map((v) => (Array.isArray(v) ? v.join(',') : String(v)));
  const build = (path: string, query: string[], body: Body, auth: Req['auth'], mutated: boolean): Req => {
    const qs = query.filter(Boolean).join('&');
    return {
      method: op.method,
      route: op.route,
      mutated: mutated || (body?.mutated ?? false),
      path: qs ? `${path}?${qs}` : path,
      ...(body && { body: body.raw, contentType: body.contentType }),
      auth,
    };
  };
  const fill = (values: string[]) => {
    let i = 0;
    return op.route.replace(/\{[^}]+\}/g, () => encode(values[i++] ?? ''));
  };

  // Well-formed: parameters and query from the schemas, the admin token; the body may still be mutated.
  const wellFormed = fc
    .record({
      path: fc.tuple(...pathParams.map((p) => queryValue(p.schema))).map(fill),
      query: fc.tuple(
        ...queryParams.map((p) =>
          fc.option(queryValue(p.schema), { nil: undefined }).map((v) => (v === undefined ? '' : `${p.name}=${encodeURIComponent(v)}`)),
        ),
      ),
      body: hasBody ? bodyFor(requestBodySchema(op)) : fc.constant(undefined as Body),
    })
    .map(({ path, query, body }) => build(path, query, body, 'admin', false));

  // Hostile: odd path segments, garbage or repeated query parameters, any credentials.
  const hostile = fc
    .record({
      path: fc.tuple(...pathParams.map((p) => paramValue(p.schema))).map(fill),
      query: fc.tuple(
        ...queryParams.map((p) =>
          fc
            .option(fc.oneof(queryValue(p.schema), fc.constantFrom('', 'maybe', '1', '-1', 'x'.repeat(100))), { nil: undefined })
            .map((v) => (v === undefined ? '' : `${p.name}=${encodeURIComponent(v)}`)),
        ),
        fc.option(fc.constantFrom('unknown=1', 'validateOnly=true&validateOnly=false', '__proto__[x]=1', 'a[b][c]=d'), { nil: '' }),
      ),
      // fetch cannot send a body with GET; a DELETE may get an unexpected one.
      body: hasBody
        ? bodyFor(requestBodySchema(op))
        : op.method === 'GET'
          ? fc.constant(undefined as Body)
          : fc.option(fc.constant({ raw: '{}', contentType: 'application/json', mutated: true }), { nil: undefined }),
      auth: fc.oneof(
        { weight: 6, arbitrary: fc.constant('admin' as const) },
        { weight: 1, arbitrary: fc.constantFrom('viewer' as const, 'none' as const, 'wrong' as const) },
      ),
    })
    .map(({ path, query, body, auth }) => build(path, query, body, auth, true));

  return fc.oneof({ weight: 3, arbitrary: wellFormed }, { weight: 2, arbitrary: hostile });
}

// ------------------------------------------------------------------ driver

async function send(r: Req): Promise<{ status: number; type: string; body: Record<string, unknown> | undefined; text: string }> {
  const headers: Record<string, string> = {};
  if (r.auth === 'admin' || r.auth === 'viewer') headers.Authorization = `Bearer ${tokens.token[r.auth]}`;
  if (r.auth === 'wrong') headers.Authorization = 'Bearer not-a-valid-token';
  if (r.contentType) headers['Content-Type'] = r.contentType;
  const res = await fetch(base + r.path, {
    method: r.method,
    headers,
    ...(r.body !== undefined && { body: r.body }),
    signal: AbortSignal.timeout(15_000),
  });
  // An event stream (GET /reassignments/events, .../{id}/events) never ends: its status and type are the answer.
  if ((res.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, type: res.headers.get('content-type') ?? '', body: undefined, text: '' };
  }
  const text = await res.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', body, text };
}

/** Parameterless reads of the API (new list routes included) plus the simulator's model. */
const snapshotOps = specOperations().filter(
  (op) => op.method === 'GET' && !op.route.includes('{') && op.requiredRole !== PUBLIC && op.operationId !== 'getMetrics',
);

async function snapshot(): Promise<string> {
  const parts: unknown[] = [];
  for (const op of snapshotOps) {
    const res = await send({ method: 'GET', path: op.route, auth: 'admin' });
    parts.push([op.route, res.status, res.body]);
  }
  // After the reads: a first read may create state lazily (the gateway's state topic).
  parts.push(sim.model.listTopics(), sim.clientQuotas.describe([], false));
  // The reported controller id is not state: like a KRaft broker, the simulator reports a random
  // live broker on every Metadata answer.
  return JSON.stringify(parts, (k, v) =>
    k === 'controllerId' ? undefined : typeof v === 'bigint' ? String(v) : v instanceof Map ? [...v] : v,
  );
}

it(`${RUNS} generated and mutated requests over every operation: no crash, no unexplained 5xx, no change after a 4xx`, async () => {
  const operations = specOperations();
  assert.ok(operations.length >= 10);
  const seen = new Map<string, Set<number>>();
  await snapshot(); // lets lazily created state (the state topic) exist before comparing
  let current = await snapshot();

  await fc.assert(
    fc.asyncProperty(fc.oneof(...operations.map(requestFor)), async (r) => {
      const res = await send(r);
      const where = `${r.method} ${r.path} auth=${r.auth} ct=${r.contentType} body=${r.body?.slice(0, 200)} -> ${res.status} ${res.text.slice(0, 300)}`;
      const key = `${r.method} ${r.route}`;
      if (process.env.FUZZ_VERBOSE && res.status === 400 && !r.mutated) console.log('400 for an unmutated request:', where);
      seen.set(key, (seen.get(key) ?? new Set()).add(res.status));

      assert.ok(res.status < 500 || res.status === 502 || res.status === 503, `unexpected ${res.status}: ${where}`);
      if (res.status >= 500) {
        const t = typeof res.body?.type === 'string' ? res.body.type : '';
        assert.ok(res.body?.kafkaError !== undefined || /kafka-(unavailable|timeout)$/.test(t), `5xx not caused by Kafka: ${where}`);
      }
      if (res.status >= 400) assert.match(res.type, /^application\/problem\+json/, where);

      const after = await snapshot();
      if (res.status >= 400 && res.status < 500) assert.equal(after, current, `a ${res.status} changed the cluster: ${where}`);
      current = after;
    }),
    { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31), endOnFailure: true },
  );

  if (process.env.FUZZ_VERBOSE) console.log([...seen].map(([k, v]) => `${k}: ${[...v].sort().join(',')}`).join('\n'));
  // Still healthy, and every operation was exercised.
  assert.equal((await send({ method: 'GET', path: '/healthz', auth: 'none' })).status, 200);
  assert.equal((await send({ method: 'GET', path: '/readyz', auth: 'none' })).status, 200);
  assert.ok(seen.size >= Math.min(operations.length, 8), `too few routes reached: ${[...seen.keys()].join(', ')}`);
});
