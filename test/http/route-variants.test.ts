// Issue 28 (S1): a viewer's `DELETE /Topics/victim` answered 204 and the topic was gone. The
// role check's matcher was case-sensitive and saw no operation; express, the validator and
// the audit line matched /topics/{topic}. Here EVERY operation of openapi.yaml (read at test
// time) is sent by EVERY caller (no token, viewer, operator, admin) in every spelling of its
// path that is not the contract's, with a request that would take effect if it reached its
// handler (the victim topic, a running reassignment, its throttles, alice's quota). Against
// the simulator over TCP, on raw request lines (node:http sends `path` byte for byte; fetch
// and supertest would resolve dot segments). It asserts:
//  - every respelling is refused before any handler: 404 route-not-found for a caller with a
//    token, 401 without one (authentication comes first; a respelled public path is not public);
//  - the canonical spelling answers per role: 401 without a token (public ones excepted), 403
//    below the operation's x-required-role, past access control at or above it;
//  - X-HTTP-Method-Override, X-HTTP-Method, X-Method-Override and `_method` are not honoured:
//    the answer is the one the request line's method gets;
//  - after every refused request: topics, topic and broker configs (throttles included),
//    client quotas and ListPartitionReassignments, read over the wire by a separate client,
//    are as before; no audit line was written, no Kafka request was sent by the refusals,
//    and the metrics labelled every respelling `unmatched`;
//  - express agrees (every router is case-sensitive and strict: a second line if the route
//    table ever let a respelling through), and the console's files stay public, in their
//    own spelling only.
import assert from 'node:assert/strict';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { Express } from 'express';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createReassignmentChangeFeed } from '../../src/events/reassignment-changes.js';
import { loadWebhookConfig } from '../../src/events/webhook-config.js';
import { WebhookService } from '../../src/events/webhook-service.js';
import { appOverKafka } from './app-over-kafka.js';
import { PUBLIC, ROLES, roleAtLeast, type OperationAccess, type Role } from '../../src/http/auth/roles.js';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics.js';
import { PROBLEM_TYPE_BASE } from '../../src/http/problem.js';
import { routeTableFor } from '../../src/http/route-table.js';
import { loadSpec } from '../../src/http/spec.js';
import { createKafkaGateway, type PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { createReassignmentRuntime, loadReassignmentConfig } from '../../src/reconcile/index.js';
import { THROTTLE_KEYS } from '../../src/reconcile/throttle-sync.js';
import { ManualClock, startSimulator, type Simulator } from '../../src/sim/index.js';
import { operationParameters, resolveSchema, roleTokens, sampleParam, samplePath, specOperations } from './auth-helpers.js';
import type { RoleTokens } from './auth-helpers.js';
import { FAST_KAFKA_ENV } from './helpers.js';

type Caller = 'none' | Role;
const CALLERS: readonly Caller[] = ['none', ...ROLES];
const MUTATIONS = ['POST', 'PUT', 'PATCH', 'DELETE'];
const OVERRIDE_HEADERS = ['X-HTTP-Method-Override', 'X-HTTP-Method', 'X-Method-Override'];
const slug = (s: string) => PROBLEM_TYPE_BASE + s;

let sim: Simulator;
let kafka: PlatformaticKafkaGateway;
/** A second client for the before/after reads: nothing the gateway caches can hide a change. */
let observer: PlatformaticKafkaGateway;
let metrics: GatewayMetrics;
let app: Express;
let server: Server;
let port: number;
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
let tokens: RoleTokens;
const audits: Record<string, unknown>[] = [];

/** What the effective requests point at. */
const fixture = { reassignmentId: '', webhookId: '', replicas: [] as number[][], spare: [] as number[][] };

interface Answer {
  status: number;
  type: string | undefined;
  allow: string | undefined;
  body: unknown;
}

interface SendOptions {
  headers?: Record<string, string>;
  body?: unknown;
}

function send(method: string, path: string, caller: Caller, opts: SendOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...opts.headers };
  if (caller !== 'none') headers.authorization = `Bearer ${tokens.token[caller]}`;
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  if (payload) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers, agent }, (res) => {
      // An event stream (GET /reassignments/events…) never ends: its status and headers are the
      // answer; the connection is closed so the stream ends on the server too.
      if (String(res.headers['content-type']).startsWith('text/event-stream')) {
        resolve({ status: res.statusCode ?? 0, type: undefined, allow: res.headers.allow, body: undefined });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          /* not JSON (the metrics text, the API document) */
        }
        const type = (body as { type?: unknown } | undefined)?.type;
        resolve({ status: res.statusCode ?? 0, type: typeof type === 'string' ? type : undefined, allow: res.headers.allow, body });
      });
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * Runs `tasks` with a few in flight (the refusals touch nothing shared; the suite stays at a few
 * seconds). Each task's failure is one more finding: all of them run to their end either way, so
 * none is still in flight when the next test looks at the audit lines.
 */
async function inParallel(tasks: (() => Promise<string | undefined>)[], width = 8): Promise<string[]> {
  const findings: string[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < tasks.length) {
      const finding = await tasks[next++]().catch((err: unknown) => `threw: ${String(err)}`);
      if (finding !== undefined) findings.push(finding);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return findings;
}

// ------------------------------------------------------------------ the requests

type Schema = Record<string, unknown>;

/** The first example openapi.yaml gives for the operation's JSON body (every body has one: openapi-examples.test.ts). */
function exampleBody(op: OperationAccess): unknown {
  const operation = (loadSpec().document.paths[op.route] as Schema)[op.method.toLowerCase()] as Schema;
  if (!operation.requestBody) return undefined;
  const media = (resolveSchema(operation.requestBody).content as Record<string, Schema>)['application/json'];
  if ('example' in media) return media.example;
  const first = Object.values((media.examples as Record<string, unknown>) ?? {})[0];
  return first === undefined ? {} : resolveSchema(first).value;
}

/**
 * Where the generic request (path parameters below, the example body, required query
 * parameters from their schemas) would not take effect on this cluster, what would.
 * Keyed by operationId; an operation added to openapi.yaml gets the generic request.
 */
const EFFECTIVE: Record<string, () => { query?: string; body?: unknown }> = {
  createTopics: () => ({ body: { name: 'made-by-a-respelling', partitions: 1, replicationFactor: 1 } }),
  deleteTopics: () => ({ query: 'name=victim&name=made-by-a-respelling' }),
  createPartitions: () => ({ body: { count: 3 } }),
  createPartitionsBatch: () => ({ body: [{ topic: 'victim', count: 4 }] }),
  setQuota: () => ({ body: { entity: { user: 'alice' }, controllerMutationRate: 9 } }),
  deleteQuota: () => ({ query: 'user=alice' }),
  createReassignment: () => ({ body: { partitions: [{ topic: 'victim', partition: 1, replicas: fixture.spare[1] }], throttle: 1048576 } }),
  setThrottledReplicas: () => ({
    body: { replicas: [{ topic: 'victim', partition: 1, leader: fixture.replicas[1], follower: fixture.spare[1] }] },
  }),
  deleteThrottledReplicas: () => ({ query: 'topics=victim&includeExternal=true' }),
  deleteThrottleRates: () => ({ query: 'includeExternal=true' }),
  createWebhook: () => ({ body: { url: 'https://hooks.example.com/kafka', events: ['completed'] } }),
};

/** Path parameters by name: the victim topic, the running reassignment. */
const PARAMS: Record<string, () => string> = {
  topic: () => 'victim',
  id: () => fixture.reassignmentId,
  webhookId: () => fixture.webhookId,
};

interface Planned {
  op: OperationAccess;
  /** Canonical path, parameters filled, no query. */
  path: string;
  /** '' or '?...' */
  query: string;
  body: unknown;
  /** Indexes of the path's literal segments (a parameter's value is not respelled: any spelling of it is canonical). */
  literals: number[];
}

function plan(op: OperationAccess): Planned {
  const special = op.operationId ? EFFECTIVE[op.operationId]?.() : undefined;
  const required = operationParameters(op).filter((p) => p.in === 'query' && p.required);
  const query = special?.query ?? required.map((p) => `${p.name}=${encodeURIComponent(sampleParam(p.schema))}`).join('&');
  return {
    op,
    path: samplePath(op, (name, schema) => PARAMS[name]?.() ?? sampleParam(schema)),
    query: query ? `?${query}` : '',
    body: special && 'body' in special ? special.body : exampleBody(op),
    literals: op.route
      .slice(1)
      .split('/')
      .flatMap((seg, i) => (seg.startsWith('{') ? [] : [i])),
  };
}

/** Every spelling of the planned path that is not the contract's, by name. */
function respellings({ path, literals }: Planned): [string, string][] {
  const segments = path.slice(1).split('/');
  const out: [string, string][] = [];
  for (const i of literals) {
    const s = segments[i];
    const c = s.search(/[a-z]/);
    const at = (seg: string) => `/${segments.map((x, k) => (k === i ? seg : x)).join('/')}`;
    out.push([`segment ${i} capitalised`, at(s.slice(0, c) + s[c].toUpperCase() + s.slice(c + 1))]);
    const escaped = (escape: string) => at(`${s.slice(0, c)}${escape}${s.slice(c + 1)}`);
    const hex = s.charCodeAt(c).toString(16);
    out.push([`segment ${i}: %${hex}`, escaped(`%${hex}`)]);
    if (hex !== hex.toUpperCase()) out.push([`segment ${i}: %${hex.toUpperCase()}`, escaped(`%${hex.toUpperCase()}`)]);
    const capital = s[c].toUpperCase().charCodeAt(0).toString(16).toUpperCase();
    out.push([`segment ${i}: %${capital} (capital, escaped)`, escaped(`%${capital}`)]);
  }
  out.push(['upper-cased', path.toUpperCase()]);
  out.push(['trailing slash', `${path}/`]);
  out.push(['leading double slash', `/${path}`]);
  out.push(['inner double slash', segments.length > 1 ? `/${segments[0]}//${segments.slice(1).join('/')}` : `${path}//x`]);
  out.push(['/./ before', `/.${path}`]);
  out.push(['/x/../ before', `/x/..${path}`]);
  out.push(['/. after', `${path}/.`]);
  out.push(['absolute-form', `http://127.0.0.1:${port}${path}`]);
  return out;
}

// ------------------------------------------------------------------ the cluster, before and after

const bigints = (_k: string, v: unknown) => (typeof v === 'bigint' ? String(v) : v);

async function kafkaState(): Promise<string> {
  const topics = (await observer.listTopics()).map((t) => t.name).sort();
  const described = await Promise.all(topics.map((t) => observer.describeTopic(t)));
  const brokers = (await observer.describeCluster()).brokers.map((b) => String(b.id)).sort();
  const brokerThrottles = await observer.describeConfigOverrides(
    brokers.map((name) => ({ kind: 'broker' as const, name })),
    THROTTLE_KEYS,
  );
  const quotas = await observer.describeClientQuotas({});
  const moving = await observer.listPartitionReassignments();
  return JSON.stringify({ described, brokerThrottles, quotas, moving }, bigints);
}

async function kafkaRequestsSent(): Promise<number> {
  const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === 'kafka_gateway_kafka_requests_total');
  return m?.values.reduce((sum, v) => sum + v.value, 0) ?? 0;
}

async function unmatchedCount(): Promise<number> {
  const m = (await metrics.registry.getMetricsAsJSON()).find((x) => x.name === 'kafka_gateway_http_requests_total');
  return m?.values.filter((v) => v.labels.route === 'unmatched').reduce((sum, v) => sum + v.value, 0) ?? 0;
}

let before0: string;

before(async () => {
  tokens = roleTokens();
  const clock = new ManualClock(Date.UTC(2024, 0, 1)); // held still: the reassignment stays in flight
  sim = await startSimulator({ brokers: 4, clock });
  metrics = createMetrics({ defaultMetrics: false });
  const config = parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') });
  kafka = createKafkaGateway(config, { onKafkaRequest: metrics.onKafkaRequest });
  observer = createKafkaGateway(config);
  // No reconciler loop: nothing but requests changes the cluster.
  const reassignments = createReassignmentRuntime({ kafka, config: loadReassignmentConfig({}), now: () => clock.now() });
  const auditLogger = {
    info: (_m: string, f?: Record<string, unknown>) => void (f?.type === 'audit' && audits.push(f)),
    warn() {},
    error() {},
  };
  // The console's public files are served before access control: they must keep working, in their spelling only.
  const page = { body: Buffer.from('<!doctype html>'), type: 'text/html; charset=utf-8', etag: '"p"' };
  const script = { ...page, type: 'text/javascript; charset=utf-8' };
  const consoleAssets = {
    files: new Map([
      ['/', page],
      ['/console/app.js', script],
    ]),
    origin: 'prebuilt' as const,
  };
  const changes = createReassignmentChangeFeed(reassignments.store);
  const webhooks = new WebhookService({ store: reassignments.store, changes, config: loadWebhookConfig({}) });
  app = appOverKafka({
    kafka,
    metrics,
    validateResponses: true,
    auth: tokens.auth,
    reassignments,
    auditLogger,
    console: consoleAssets,
    changes,
    webhooks,
  });
  server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;

  const created = await send('POST', '/topics', 'admin', { body: { name: 'victim', partitions: 2, replicationFactor: 2 } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const topic = (await send('GET', '/topics/victim', 'admin')).body as { partitions: { replicas: number[] }[] };
  fixture.replicas = topic.partitions.map((p) => p.replicas);
  fixture.spare = fixture.replicas.map((r) => [0, 1, 2, 3].filter((b) => !r.includes(b)));
  const move = { partitions: [{ topic: 'victim', partition: 0, replicas: fixture.spare[0] }], throttle: 1048576 };
  const started = await send('POST', '/reassignments', 'admin', { body: move });
  assert.equal(started.status, 202, JSON.stringify(started.body));
  fixture.reassignmentId = (started.body as { id: string }).id;
  const hook = await send('POST', '/webhooks', 'admin', { body: { url: 'https://hooks.example.com/fixture', events: ['completed'] } });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  fixture.webhookId = (hook.body as { webhook: { id: string } }).webhook.id;
  const quota = await send('PUT', '/quotas', 'admin', { body: { entity: { user: 'alice' }, controllerMutationRate: 5 } });
  assert.ok(quota.status < 300, JSON.stringify(quota.body));
  before0 = await kafkaState();
  assert.match(before0, /leader\.replication\.throttled\.rate/, 'the reassignment set throttles for the refusals to (not) remove');
  assert.match(before0, /alice/);
});

after(async () => {
  agent.destroy();
  // The event-stream operations (GET /reassignments/events…) never end their answers: close
  // their connections, or server.close() waits for them forever.
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  await observer?.close().catch(() => undefined);
  await kafka?.close().catch(() => undefined);
  await sim?.close();
});

// ------------------------------------------------------------------ the tests

describe('every operation of openapi.yaml, by every caller, in every spelling', () => {
  const operations = specOperations();

  it('covers the contract', () => {
    assert.ok(operations.length >= 25, `${operations.length} operations`);
    const ids = new Set(operations.map((o) => o.operationId));
    assert.deepEqual(
      Object.keys(EFFECTIVE).filter((id) => !ids.has(id)),
      [],
      'EFFECTIVE names operations that no longer exist',
    );
  });

  it('express agrees: the app and every router in it match case-sensitively and strictly', () => {
    interface RouterLike {
      caseSensitive?: boolean;
      strict?: boolean;
      stack?: { route?: unknown; handle?: RouterLike }[];
    }
    const routers: RouterLike[] = [];
    const walk = (r: RouterLike): void => {
      routers.push(r);
      for (const layer of r.stack ?? []) if (!layer.route && Array.isArray(layer.handle?.stack)) walk(layer.handle);
    };
    walk((app as unknown as { router: RouterLike }).router);
    assert.ok(routers.length >= 12, `${routers.length} routers`);
    assert.deepEqual(routers.filter((r) => r.caseSensitive !== true || r.strict !== true).length, 0);
  });

  it("the console's files stay public in their own spelling, and only in it", async () => {
    assert.equal((await send('GET', '/', 'none')).status, 200);
    assert.equal((await send('GET', '/console/app.js', 'none')).status, 200);
    for (const path of ['/Console/app.js', '/console/app.js/', '//console/app.js', '/console/%61pp.js', '/./']) {
      assert.equal((await send('GET', path, 'none')).status, 401, path);
      assert.equal((await send('GET', path, 'viewer')).type, slug('route-not-found'), path);
    }
  });

  it('a respelled path is refused before any handler: 404 with a token, 401 without', async () => {
    const planned = operations.map(plan);
    const kafkaBefore = await kafkaRequestsSent();
    const unmatchedBefore = await unmatchedCount();
    const auditsBefore = audits.length;
    const tasks: (() => Promise<string | undefined>)[] = [];
    const table = routeTableFor(loadSpec().document);
    for (const p of planned) {
      for (const [name, path] of respellings(p)) {
        // A literal beside a parameter (/reassignments/events, /reassignments/{id}): `/reassignments/Events`
        // is the canonical spelling of the other operation, not a respelling of this one.
        if (table.match(p.op.method, path).kind === 'operation') continue;
        for (const caller of CALLERS) {
          tasks.push(async () => {
            const res = await send(p.op.method, path + p.query, caller, { body: p.body });
            const [status, type] = caller === 'none' ? [401, slug('authentication-required')] : [404, slug('route-not-found')];
            if (res.status === status && res.type === type) return undefined;
            const body = String(JSON.stringify(res.body)).slice(0, 160);
            return `${p.op.method} ${path}${p.query} (${name}) as ${caller}: ${res.status} ${body}`;
          });
        }
      }
    }
    const wrong = await inParallel(tasks);
    assert.deepEqual(wrong, [], `${wrong.length} of ${tasks.length} respellings were not refused`);
    assert.equal(await kafkaRequestsSent(), kafkaBefore, 'a refused request sent a Kafka request');
    assert.equal((await unmatchedCount()) - unmatchedBefore, tasks.length, 'every respelling is labelled route="unmatched"');
    assert.deepEqual(audits.slice(auditsBefore), [], 'a refused request reached the audit line');
  });

  it('the canonical spelling below the required role: 401 without a token, 403 for a lower role; nothing sent to Kafka', async () => {
    const kafkaBefore = await kafkaRequestsSent();
    const auditsBefore = audits.length;
    const wrong: string[] = [];
    for (const p of operations.map(plan)) {
      for (const caller of CALLERS) {
        const need = p.op.requiredRole;
        if (need === PUBLIC || (caller !== 'none' && roleAtLeast(caller, need))) continue;
        const res = await send(p.op.method, p.path + p.query, caller, { body: p.body });
        const expected = caller === 'none' ? [401, slug('authentication-required')] : [403, slug('insufficient-role')];
        if (res.status !== expected[0] || res.type !== expected[1]) {
          wrong.push(`${p.op.method} ${p.path} as ${caller}: ${res.status} ${res.type}`);
        }
      }
    }
    assert.deepEqual(wrong, []);
    assert.equal(await kafkaRequestsSent(), kafkaBefore);
    assert.deepEqual(audits.slice(auditsBefore), []);
  });

  it("method-override headers and _method are not honoured: the request line's method is answered", async () => {
    const auditsBefore = audits.length;
    const tasks: (() => Promise<string | undefined>)[] = [];
    // The carrier requests are harmless on their own (a read, a POST whose `{}` body is
    // refused, a 405); honouring the override would make them the effective mutation.
    for (const p of operations.filter((o) => MUTATIONS.includes(o.method)).map(plan)) {
      for (const carrier of ['GET', 'POST'].filter((m) => m !== p.op.method)) {
        const body = carrier === 'POST' ? {} : undefined;
        for (const caller of ROLES) {
          tasks.push(async () => {
            const url = p.path + p.query;
            const plain = await send(carrier, url, caller, { body });
            const problems: string[] = [];
            for (const header of OVERRIDE_HEADERS) {
              const res = await send(carrier, url, caller, { body, headers: { [header]: p.op.method } });
              const same = res.status === plain.status && res.type === plain.type && res.allow === plain.allow;
              // Bodies too, but /metrics counts the requests themselves.
              if (!same || (p.op.operationId !== 'getMetrics' && JSON.stringify(res.body) !== JSON.stringify(plain.body))) {
                const got = `${res.status} ${res.type} vs ${plain.status} ${plain.type}`;
                problems.push(`${carrier} ${url} + ${header}: ${p.op.method} as ${caller}: ${got}`);
              }
            }
            // `_method` is one more query parameter: answered like any unknown one.
            const sep = p.query ? '&' : '?';
            const [viaQuery, control] = await Promise.all([
              send(carrier, `${url}${sep}_method=${p.op.method}`, caller, { body }),
              send(carrier, `${url}${sep}_ignored=${p.op.method}`, caller, { body }),
            ]);
            if (viaQuery.status !== control.status || viaQuery.type !== control.type) {
              const got = `${viaQuery.status} ${viaQuery.type} vs ${control.status} ${control.type}`;
              problems.push(`${carrier} ${url}${sep}_method=${p.op.method} as ${caller}: ${got}`);
            }
            if (carrier === 'POST' && plain.status < 300) problems.push(`the carrier POST ${url} took effect: ${plain.status}`);
            return problems.length ? problems.join('\n') : undefined;
          });
        }
      }
    }
    assert.ok(tasks.length > 0);
    const wrong = await inParallel(tasks, 4);
    assert.deepEqual(wrong, []);
    assert.deepEqual(audits.slice(auditsBefore), [], 'a carrier request reached the audit line');
  });

  it('after all of the above, Kafka is as it was: topics, configs, throttles, quotas, moving partitions', async () => {
    assert.equal(await kafkaState(), before0);
  });

  // Last: these take effect. Deletions after the rest, the topics' last, so that each request
  // finds what it acts on; every change must then go through, which shows that the requests
  // the respellings carried above were real ones.
  it('the canonical spelling at or above the required role passes access control, and each change takes effect', async () => {
    const refusals = new Set(
      ['authentication-required', 'invalid-credentials', 'insufficient-role', 'route-not-found', 'method-not-allowed'].map(slug),
    );
    const rank = (o: OperationAccess) => {
      const last = ['deleteTopic', 'deleteTopics'].indexOf(String(o.operationId));
      return last >= 0 ? 2 + last : o.method === 'DELETE' ? 1 : 0;
    };
    const wrong: string[] = [];
    const tookEffect = new Set<string>();
    for (const p of [...operations].sort((a, b) => rank(a) - rank(b)).map(plan)) {
      for (const caller of CALLERS) {
        const need = p.op.requiredRole;
        if (!(need === PUBLIC || (caller !== 'none' && roleAtLeast(caller, need)))) continue;
        const res = await send(p.op.method, p.path + p.query, caller, { body: p.body });
        if (res.status === 401 || res.status === 403 || res.status === 405 || refusals.has(res.type ?? '')) {
          wrong.push(`${p.op.method} ${p.path}${p.query} as ${caller}: ${res.status} ${res.type}`);
        }
        if (res.status < 300) tookEffect.add(`${p.op.method} ${p.op.route}`);
      }
    }
    assert.deepEqual(wrong, []);
    const noEffect = operations.filter((o) => MUTATIONS.includes(o.method) && !tookEffect.has(`${o.method} ${o.route}`));
    assert.deepEqual(
      noEffect.map((o) => o.operationId),
      [],
      'give these an effective request in EFFECTIVE',
    );
    const audited = new Set(audits.filter((a) => a.outcome === 'success' || a.outcome === 'partial').map((a) => a.operationId));
    assert.ok(audited.has('deleteTopic') && audited.has('cancelReassignment'), [...audited].join(', '));
  });
});
