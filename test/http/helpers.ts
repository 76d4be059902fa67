// Shared test helpers: a simulator + real Kafka layer + gateway app in one call,
// cluster snapshots for "a 4xx changed nothing" assertions, and problem assertions.
// Everything binds port 0; teardown closes in reverse order of startup.
import assert from 'node:assert/strict';
import type { Express } from 'express';
import request, { type Response } from 'supertest';
import { appOverKafka, type AppOverKafkaOptions } from './app-over-kafka.js';
import type { Logger } from '../../src/observability/logger.js';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics.js';
import { PROBLEM_TYPE_BASE } from '../../src/http/problem.js';
import { loadSpec } from '../../src/http/spec.js';
import type { components } from '../../src/http/openapi-types.js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig, type Env } from '../../src/kafka/config.js';
import type { KafkaGateway } from '../../src/kafka/types.js';
import { startSimulator, type SimulatorOptions } from '../../src/sim/index.js';
import { assertNoRequestOutsideRelease } from '../sim/out-of-range-guard.js';

type Schemas = components['schemas'];

export interface RecordingLogger extends Logger {
  readonly errors: { msg: string; fields?: Record<string, unknown> }[];
  readonly warnings: { msg: string; fields?: Record<string, unknown> }[];
}

export function recordingLogger(): RecordingLogger {
  const errors: RecordingLogger['errors'] = [];
  const warnings: RecordingLogger['warnings'] = [];
  return {
    errors,
    warnings,
    info() {},
    warn: (msg, fields) => void warnings.push({ msg, ...(fields && { fields }) }),
    error: (msg, fields) => void errors.push({ msg, ...(fields && { fields }) }),
  };
}

/**
 * The members openapi.yaml's Problem schema allows. express-openapi-validator only
 * response-validates requests that passed request validation (its response hook sits
 * after the request validator), so the gateway's own 400s, 404s, 405s, 413s and 415s
 * are checked here instead, against the same schema.
 */
function problemSchema(): { members: Set<string>; validationErrorMembers: Set<string> } {
  const schemas = (loadSpec().document.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas;
  return {
    members: new Set(Object.keys(schemas.Problem.properties)),
    validationErrorMembers: new Set(Object.keys(schemas.ValidationError.properties)),
  };
}

/** Asserts an RFC 9457 problem: status, media type, type slug, and (optionally) the Kafka error code. */
export function expectProblem(res: Response, status: number, slug: string, kafkaCode?: number): void {
  const where = `-> ${res.status} ${JSON.stringify(res.body)}`;
  assert.equal(res.status, status, where);
  const { members, validationErrorMembers } = problemSchema();
  for (const key of Object.keys(res.body)) assert.ok(members.has(key), `undocumented problem member '${key}' ${where}`);
  for (const e of res.body.errors ?? []) {
    assert.deepEqual(
      Object.keys(e).filter((k) => !validationErrorMembers.has(k)),
      [],
      where,
    );
    assert.equal(typeof e.path, 'string', where);
    assert.equal(typeof e.message, 'string', where);
  }
  if (res.body.instance !== undefined) assert.equal(typeof res.body.instance, 'string', where);
  if (res.body.detail !== undefined) assert.equal(typeof res.body.detail, 'string', where);
  assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/, where);
  assert.equal(res.body.type, PROBLEM_TYPE_BASE + slug, where);
  assert.equal(res.body.status, status, where);
  assert.equal(typeof res.body.title, 'string', where);
  if (kafkaCode !== undefined) assert.equal(res.body.kafkaError?.code, kafkaCode, where);
}

/** Client settings that keep outage tests short: one retry, second-scale timeouts. */
export const FAST_KAFKA_ENV: Env = {
  KAFKA_REQUEST_TIMEOUT_MS: '3000',
  KAFKA_CONNECT_TIMEOUT_MS: '1000',
  KAFKA_PING_TIMEOUT_MS: '1000',
  KAFKA_RETRIES: '1',
  KAFKA_RETRY_BACKOFF_MS: '50',
  KAFKA_RETRY_BACKOFF_MAX_MS: '200',
};

export interface Gateway {
  sim: Awaited<ReturnType<typeof startSimulator>>;
  kafka: KafkaGateway;
  metrics: GatewayMetrics;
  app: Express;
  logger: RecordingLogger;
  /** A fresh supertest client (each request binds its own ephemeral port). */
  http(): ReturnType<typeof request>;
  snapshot(): Promise<ClusterSnapshot>;
  /** Asserts GET /topics and GET /topics/{t} for every topic are as in `before`. */
  assertUnchanged(before: ClusterSnapshot): Promise<void>;
  close(): Promise<void>;
}

export interface StartGatewayOptions {
  simulator?: SimulatorOptions;
  kafkaEnv?: Env;
  app?: Partial<Omit<AppOverKafkaOptions, 'kafka'>>;
}

export async function startGateway(opts: StartGatewayOptions = {}): Promise<Gateway> {
  const sim = await startSimulator({ brokers: 3, ...opts.simulator });
  const metrics = createMetrics({ defaultMetrics: false });
  let kafka: KafkaGateway | undefined;
  try {
    const config = parseKafkaConfig({ ...FAST_KAFKA_ENV, ...opts.kafkaEnv, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') });
    kafka = createKafkaGateway(config, { onKafkaRequest: metrics.onKafkaRequest });
  } catch (err) {
    await sim.close();
    throw err;
  }
  const logger = recordingLogger();
  const app = appOverKafka({ kafka, metrics, logger, validateResponses: true, ...opts.app });
  const k = kafka;
  let closed = false;
  return {
    sim,
    kafka: k,
    metrics,
    app,
    logger,
    http: () => request(app),
    snapshot: () => snapshotCluster(app),
    async assertUnchanged(before) {
      assert.deepEqual(await snapshotCluster(app), before, 'a rejected request must leave the cluster unchanged');
    },
    async close() {
      if (closed) return;
      closed = true;
      await k.close().catch(() => undefined);
      await sim.close();
      assertNoRequestOutsideRelease(sim); // issue 29: the gateway never sends outside the release's ranges
    },
  };
}

export interface ClusterSnapshot {
  topics: Schemas['TopicList'];
  details: Record<string, Schemas['Topic']>;
}

/** The cluster as the API shows it: GET /topics plus GET /topics/{t} for each topic. */
export async function snapshotCluster(app: Express): Promise<ClusterSnapshot> {
  const list = await request(app).get('/topics');
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const topics = list.body as Schemas['TopicList'];
  const details: Record<string, Schemas['Topic']> = {};
  for (const t of topics.topics) {
    const res = await request(app).get(`/topics/${encodeURIComponent(t.name)}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    details[t.name] = res.body as Schemas['Topic'];
  }
  return { topics, details };
}

/** Creates topics through the API (so tests exercise the same path users do). */
export async function createTopics(gw: Gateway, ...topics: Schemas['NewTopic'][]): Promise<void> {
  for (const t of topics) {
    const res = await gw.http().post('/topics').send(t);
    assert.equal(res.status, 201, JSON.stringify(res.body));
  }
}
