// The audit trail and request ids, read back from real pino output: one audit line per
// change that reaches a handler (success, Kafka refusal, validateOnly, batches), none
// for reads; who, what, request id and Kafka result in each; and no credential - bearer
// token, SASL password, secret-looking body field - in any log line.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger, type Logger } from '../../src/observability/logger.js';
import express from 'express';
import request from 'supertest';
import { auditMiddleware, redactBody, resultOf } from '../../src/http/audit.js';
import { roleTokens, type RoleTokens } from './auth-helpers.js';
import { expectProblem, startGateway, type Gateway } from './helpers.js';

interface Captured {
  logger: Logger;
  lines: Record<string, unknown>[];
  raw: string[];
}

function capture(): Captured {
  const raw: string[] = [];
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n').filter(Boolean)) {
        raw.push(l);
        lines.push(JSON.parse(l));
      }
      cb();
    },
  });
  return { logger: createLogger({ destination }), lines, raw };
}

const SASL_PASSWORD = 'scram-pass-Zx81';
const SECRET_CONFIG_VALUE = 'hunter2-secret-value';

let gw: Gateway;
let log: Captured;
let tokens: RoleTokens;
const audits = () => log.lines.filter((l) => l.type === 'audit');
const auth = (role: 'viewer' | 'operator' | 'admin' = 'admin') => `Bearer ${tokens.token[role]}`;

before(async () => {
  tokens = roleTokens();
  log = capture();
  gw = await startGateway({
    simulator: { saslScramUsers: { gateway: SASL_PASSWORD } },
    kafkaEnv: { KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256', KAFKA_SASL_USERNAME: 'gateway', KAFKA_SASL_PASSWORD: SASL_PASSWORD },
    app: { auth: tokens.auth, logger: log.logger },
  });
});
after(() => gw?.close());

describe('audit lines', () => {
  it('a successful change: who, what, request id, result', async () => {
    const res = await gw
      .http()
      .post('/topics')
      .set('Authorization', auth('operator'))
      .set('X-Request-Id', 'req-create-1')
      .send({ name: 'audited', partitions: 2, replicationFactor: 1 });
    assert.equal(res.status, 201);
    assert.equal(res.headers['x-request-id'], 'req-create-1');
    const [line, ...more] = audits();
    assert.equal(more.length, 0);
    assert.equal(line.level, 'info');
    assert.equal(line.msg, 'audit');
    assert.deepEqual(
      {
        principal: line.principal,
        operationId: line.operationId,
        method: line.method,
        route: line.route,
        requestId: line.requestId,
        outcome: line.outcome,
        result: line.result,
      },
      {
        principal: { id: 'operator-caller', role: 'operator' },
        operationId: 'createTopics',
        method: 'POST',
        route: '/topics',
        requestId: 'req-create-1',
        outcome: 'success',
        result: { status: 201 },
      },
    );
    assert.deepEqual(line.body, { name: 'audited', partitions: 2, replicationFactor: 1 });
    assert.equal(typeof line.time, 'string');
  });

  it('a Kafka refusal: the Kafka error name and code', async () => {
    const before = audits().length;
    const res = await gw.http().post('/topics').set('Authorization', auth()).send({ name: 'audited' });
    expectProblem(res, 409, 'topic-already-exists', 36);
    const line = audits()[before];
    assert.equal(line.outcome, 'failure');
    assert.deepEqual(line.result, { status: 409, problem: 'topic-already-exists', kafkaError: { name: 'TOPIC_ALREADY_EXISTS', code: 36 } });
    assert.equal(line.requestId, res.headers['x-request-id']);
  });

  it('validateOnly is audited too, with its query', async () => {
    const before = audits().length;
    const res = await gw.http().post('/topics/audited/partitions?validateOnly=true').set('Authorization', auth()).send({ count: 3 });
    assert.equal(res.status, 200);
    const line = audits()[before];
    assert.deepEqual(
      { op: line.operationId, params: line.params, status: (line.result as { status: number }).status },
      { op: 'createPartitions', params: { topic: 'audited' }, status: 200 },
    );
    // The validator may have coerced it to a boolean.
    assert.equal(String((line.query as { validateOnly: unknown }).validateOnly), 'true');
  });

  it('the body as it arrived, though the route lets go of it once read (POST /reassignments does)', async () => {
    const own = capture();
    const app = express();
    app.use(express.json());
    app.use(auditMiddleware(own.logger));
    app.post('/x', (req, res) => {
      req.body = undefined;
      res.status(201).json({ ok: true });
    });
    const body = { partitions: [{ topic: 'a', partition: 0, replicas: [1] }], secret: 'hidden' };
    assert.equal((await request(app).post('/x').send(body)).status, 201);
    const [line, ...more] = own.lines.filter((l) => l.type === 'audit');
    assert.equal(more.length, 0);
    assert.deepEqual(line.body, { partitions: body.partitions, secret: '[REDACTED]' });
  });

  it('a batch: one line with every item result', async () => {
    const before = audits().length;
    const res = await gw
      .http()
      .post('/topics')
      .set('Authorization', auth())
      .send([{ name: 'audited' }, { name: 'audited-2', partitions: 1, replicationFactor: 1 }]);
    assert.equal(res.status, 207);
    assert.equal(audits().length, before + 1);
    assert.deepEqual((audits()[before].result as { items: unknown }).items, [
      { name: 'audited', status: 409, kafkaError: { name: 'TOPIC_ALREADY_EXISTS', code: 36 } },
      { name: 'audited-2', status: 201 },
    ]);
    assert.equal(audits()[before].outcome, 'partial');
  });

  it('deletes are audited; reads, refused and invalid requests are not (they reach no handler)', async () => {
    const before = audits().length;
    assert.equal((await gw.http().get('/topics').set('Authorization', auth('viewer'))).status, 200);
    assert.equal((await gw.http().delete('/topics/audited-2').set('Authorization', auth('operator'))).status, 403);
    assert.equal((await gw.http().post('/topics').set('Authorization', auth()).send({ name: 'bad name' })).status, 400);
    assert.equal(audits().length, before);
    assert.equal((await gw.http().delete('/topics/audited-2').set('Authorization', auth('admin'))).status, 204);
    assert.equal(audits().length, before + 1);
    assert.deepEqual(
      {
        op: audits()[before].operationId,
        who: (audits()[before].principal as { id: string }).id,
        status: (audits()[before].result as { status: number }).status,
      },
      { op: 'deleteTopic', who: 'admin-caller', status: 204 },
    );
    const denied = log.lines.filter((l) => l.type === 'access-denied');
    assert.ok(denied.some((l) => l.status === 403 && (l.principal as { id: string }).id === 'operator-caller'));
  });

  it('secret-looking body fields are redacted', async () => {
    const before = audits().length;
    await gw
      .http()
      .post('/topics')
      .set('Authorization', auth())
      .send({ name: 'with-secret', configs: { 'ssl.key.password': SECRET_CONFIG_VALUE, 'cleanup.policy': 'compact' } });
    const line = audits()[before];
    assert.deepEqual((line.body as { configs: unknown }).configs, { 'ssl.key.password': '[REDACTED]', 'cleanup.policy': 'compact' });
  });
});

describe('request ids', () => {
  it('a sane X-Request-Id is kept; anything else is replaced by a generated one', async () => {
    const kept = await gw.http().get('/healthz').set('X-Request-Id', 'abc-123:x.y_z');
    assert.equal(kept.headers['x-request-id'], 'abc-123:x.y_z');
    for (const bad of ['a'.repeat(129), 'has space', '{"json":1}', 'semi;colon', '']) {
      const res = await gw.http().get('/healthz').set('X-Request-Id', bad);
      assert.match(res.headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/, bad);
    }
    assert.match((await gw.http().get('/healthz')).headers['x-request-id'] ?? '', /^[0-9a-f-]{36}$/);
  });
});

describe('credentials never reach the logs', () => {
  it('with wrong Kafka credentials: 503 with a clear problem, readyz 503, and no password logged', async () => {
    const wrong = await startGateway({
      simulator: { saslScramUsers: { gateway: SASL_PASSWORD } },
      kafkaEnv: {
        KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
        KAFKA_SASL_USERNAME: 'gateway',
        KAFKA_SASL_PASSWORD: 'wrong-pass-Q93',
        KAFKA_RETRIES: '0',
      },
      app: { auth: tokens.auth, logger: log.logger },
    });
    try {
      const before = await wrong.snapshot().catch(() => undefined);
      assert.equal(before, undefined, 'snapshot needs a token and Kafka: both fail here');
      const res = await wrong
        .http()
        .post('/topics')
        .set('Authorization', auth())
        .send({ name: 'never', partitions: 1, replicationFactor: 1 });
      expectProblem(res, 503, 'kafka-unavailable', 58);
      assert.equal(res.body.kafkaError.name, 'SASL_AUTHENTICATION_FAILED');
      assert.ok(res.headers['retry-after']);
      const ready = await wrong.http().get('/readyz');
      expectProblem(ready, 503, 'kafka-unavailable', 58);
      assert.equal(audits().at(-1)!.result && (audits().at(-1)!.result as { kafkaError: unknown }).kafkaError !== undefined, true);
    } finally {
      await wrong.close();
    }
    // Nothing was created with the failed credentials.
    assert.equal(gw.sim.model.getTopic('never'), undefined);
  });

  it('no log line holds a bearer token, a SASL password or a secret config value', () => {
    assert.ok(log.raw.length > 5, 'the check below must not be vacuous');
    const all = log.raw.join('\n');
    for (const secret of [...Object.values(tokens.token), SASL_PASSWORD, 'wrong-pass-Q93', SECRET_CONFIG_VALUE]) {
      assert.ok(!all.includes(secret), `a log line contains a secret: ${secret.slice(0, 4)}...`);
    }
  });
});

describe('redaction and result helpers', () => {
  it('redactBody bounds size and depth, and hides secret-looking names at any depth', () => {
    const body = {
      a: { b: { c: { d: { e: { f: { g: 1 } } } } } },
      list: Array.from({ length: 30 }, (_, i) => i),
      s: 'x'.repeat(300),
      nested: [{ sasl_jaas_config: 'x', apiKey: 'k', token: 't' }],
    };
    const r = redactBody(body) as Record<string, unknown>;
    assert.equal(JSON.stringify(r).includes('"g"'), false);
    assert.equal((r.list as unknown[]).length, 21);
    assert.match(r.s as string, /\(300 chars\)$/);
    assert.deepEqual(r.nested, [{ sasl_jaas_config: '[REDACTED]', apiKey: '[REDACTED]', token: '[REDACTED]' }]);
  });

  it('resultOf reads problems and batch items, and ignores anything else', () => {
    assert.deepEqual(resultOf(204, undefined), { status: 204 });
    assert.deepEqual(resultOf(200, 'text'), { status: 200 });
    assert.deepEqual(
      resultOf(502, { type: 'https://x/problems/unknown-server-error', kafkaError: { name: 'UNKNOWN_SERVER_ERROR', code: -1 } }),
      {
        status: 502,
        problem: 'unknown-server-error',
        kafkaError: { name: 'UNKNOWN_SERVER_ERROR', code: -1 },
      },
    );
  });
});
