// GET /reassignments/events and /reassignments/{id}/events (Server-Sent Events) over a real
// socket, against the simulator, the real Kafka layer, the reconciler and the change feed
// (src/events/reassignment-changes.ts). A ManualClock drives the simulator's copies and the
// gateway's clock, so a reassignment runs exactly as long as the test advances it.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import request from 'supertest';
import { EventStreamParser, type StreamItem } from '../../src/client/event-stream.js';
import { createReassignmentChangeFeed, type ReassignmentChanges } from '../../src/events/reassignment-changes.js';
import { appOverKafka } from './app-over-kafka.js';
import { silentLogger } from '../../src/observability/logger.js';
import { createMetrics, type GatewayMetrics } from '../../src/observability/metrics.js';
import { startServer } from '../../src/http/server.js';
import { ManualClock } from '../../src/sim/index.js';
import { createTopics, startReassignGateway, type ReassignGateway } from './reassignment-helpers.js';
import { eventually } from '../eventually.js';

const MAX_STREAMS = 3;
const HEARTBEAT_MS = 250;
const PROGRESS_MS = 150;

let clock: ManualClock;
let gw: ReassignGateway;
let feed: ReassignmentChanges;
let metrics: GatewayMetrics;
let app: ReturnType<typeof appOverKafka>;
let server: Server;
let base: string;

before(async () => {
  clock = new ManualClock();
  gw = await startReassignGateway({ clock, simulator: { brokers: 4, replicationBytesPerSecond: 100_000 } });
  feed = createReassignmentChangeFeed(gw.runtime.store);
  metrics = createMetrics({ defaultMetrics: false });
  app = appOverKafka({
    kafka: gw.kafka,
    metrics,
    validateResponses: true,
    reassignments: gw.runtime,
    changes: feed,
    streams: { maxStreams: MAX_STREAMS, heartbeatMs: HEARTBEAT_MS, progressIntervalMs: PROGRESS_MS },
  });
  server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await createTopics(gw, {
    name: 'sse',
    assignments: [
      [0, 1],
      [0, 1],
    ],
  });
  gw.sim.seedBytes('sse', 0, 100_000);
  gw.sim.seedBytes('sse', 1, 100_000);
});
after(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  feed?.close();
  await gw?.close();
});

interface Opened {
  status: number;
  contentType: string | null;
  items: StreamItem[];
  /** The events alone, parsed data. */
  events(): { event: string; id: string | null; data: any }[];
  until<T>(pick: () => T | undefined, what: string, timeoutMs?: number): Promise<T>;
  close(): void;
  ended: Promise<void>;
}

/** Opens a stream and reads it in the background (items gathered as they arrive). */
async function open(path: string, headers: Record<string, string> = {}): Promise<Opened> {
  const abort = new AbortController();
  const res = await fetch(base + path, { headers: { accept: 'text/event-stream', ...headers }, signal: abort.signal });
  const items: StreamItem[] = [];
  const parser = new EventStreamParser();
  let ended: Promise<void> = Promise.resolve();
  if (res.status === 200 && res.body) {
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    ended = (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) return;
          items.push(...parser.push(value));
        }
      } catch {
        // aborted by close()
      }
    })();
  } else await res.text();
  const events = () =>
    items.flatMap((i) => (i.kind === 'event' ? [{ event: i.event.event, id: i.event.id, data: JSON.parse(i.event.data) }] : []));
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    items,
    events,
    until: (pick, what, timeoutMs = 15_000) =>
      eventually(async () => pick() ?? undefined, timeoutMs, 20).catch(() =>
        assert.fail(`${what}: not seen in time; got ${JSON.stringify(items)}`),
      ),
    close: () => abort.abort(),
    ended,
  };
}

const openStreams = async () => Number(/kafka_gateway_event_streams_open (\d+)/.exec(await metrics.registry.metrics())?.[1]);

/** Advances the simulated clock until the reassignment is `state` (the reconciler sees its moves end). */
async function advanceUntil(id: string, state: string): Promise<void> {
  await eventually(
    async () => {
      const r = await request(app).get(`/reassignments/${id}`);
      if (r.body.state === state) return true;
      clock.advance(1000);
      return undefined;
    },
    30_000,
    50,
  );
}

describe('reassignment event streams (SSE)', () => {
  let id: string;
  let firstEventId: string;

  it('the all-stream sends a snapshot, then created, started and completed in order with ids, and progress summaries (never partition rows) while it runs', async () => {
    const all = await open('/reassignments/events');
    try {
      assert.equal(all.status, 200);
      assert.match(all.contentType ?? '', /^text\/event-stream/);
      const snapshot = await all.until(() => all.events().find((e) => e.event === 'snapshot'), 'snapshot');
      assert.ok(Array.isArray(snapshot.data.reassignments));

      const post = await request(app)
        .post('/reassignments')
        .send({ partitions: [{ topic: 'sse', partition: 0, replicas: [2, 1] }], throttle: 10_000 });
      assert.equal(post.status, 202, JSON.stringify(post.body));
      id = post.body.id;
      // Running: each advance copies bytes; a progress event follows the reconciler's snapshot.
      await all.until(() => all.events().find((e) => e.event === 'started' && e.data.reassignment?.id === id), 'started');
      clock.advance(2000);
      const progress = await all.until(
        () =>
          all.events().find((e) => e.event === 'progress' && e.data.reassignment?.id === id && e.data.reassignment.progress.bytesDone > 0),
        'a progress event with bytes done',
      );
      assert.equal(progress.data.change, null);
      assert.equal(
        progress.id,
        all
          .events()
          .filter((e) => e.event !== 'progress' && e.event !== 'snapshot')
          .at(-1)?.id ?? null,
        'a progress event moves no cursor',
      );
      await advanceUntil(id, 'completed');
      await all.until(() => all.events().find((e) => e.event === 'completed' && e.data.reassignment?.id === id), 'completed');

      const changes = all.events().filter((e) => e.data.change && e.data.reassignment?.id === id);
      assert.deepEqual(
        changes.map((e) => e.event),
        ['created', 'started', 'completed'],
      );
      for (const e of changes) {
        assert.ok(e.id, 'every change carries an id');
        assert.equal(e.data.change.eventId, e.id);
        assert.equal(e.data.change.type, e.event);
        assert.equal(e.data.reassignment.id, id);
        assert.equal(e.data.reassignment.rollback, undefined, 'the summary only');
        assert.equal(e.data.reassignment.partitions, undefined, 'no partition rows');
      }
      assert.deepEqual(
        changes.map((e) => e.data.change.previousState),
        [null, 'pending', 'running'],
      );
      assert.equal(changes.at(-1)!.data.reassignment.state, 'completed');
      assert.equal(new Set(changes.map((e) => e.id)).size, 3, 'ids are distinct');
      firstEventId = changes[0].id!;
    } finally {
      all.close();
    }
  });

  it('Last-Event-ID replays the changes after it (kept by the feed), then the snapshot; an unknown id gets the snapshot alone', async () => {
    const s = await open(`/reassignments/${id}/events`, { 'last-event-id': firstEventId });
    try {
      assert.equal(s.status, 200);
      await s.until(() => s.events().find((e) => e.event === 'snapshot'), 'snapshot');
      const events = s.events();
      assert.deepEqual(
        events.map((e) => e.event),
        ['started', 'completed', 'snapshot'],
      );
      assert.deepEqual(
        events.slice(0, 2).map((e) => e.data.change.previousState),
        ['pending', 'running'],
      );
      assert.equal(events[2].data.reassignment.state, 'completed');
      assert.equal(events[2].id, events[1].id, 'the snapshot keeps the cursor of the last change');
    } finally {
      s.close();
    }
    const unknown = await open(`/reassignments/${id}/events`, { 'last-event-id': 'no-such-event' });
    try {
      await unknown.until(() => unknown.events().find((e) => e.event === 'snapshot'), 'snapshot');
      assert.deepEqual(
        unknown.events().map((e) => e.event),
        ['snapshot'],
      );
    } finally {
      unknown.close();
    }
  });

  it('a heartbeat comment arrives on an idle stream', async () => {
    const s = await open(`/reassignments/${id}/events`);
    try {
      await s.until(() => s.items.find((i) => i.kind === 'comment' && i.text === 'keep-alive'), 'keep-alive comment', 5000);
      assert.ok(
        s.items.some((i) => i.kind === 'retry'),
        'a reconnection delay is suggested',
      );
    } finally {
      s.close();
    }
  });

  it('404 for an unknown reassignment', async () => {
    const res = await request(app).get('/reassignments/r-nope/events');
    assert.equal(res.status, 404);
    assert.equal(res.body.type, 'https://kafka-admin-gateway.dev/problems/reassignment-not-found');
  });

  it(`at most ${MAX_STREAMS} streams: the next is a 503 problem with Retry-After; a closed stream frees its place (the gauge follows)`, async () => {
    await eventually(async () => ((await openStreams()) === 0 ? true : undefined));
    const streams = [];
    try {
      for (let i = 0; i < MAX_STREAMS; i++) streams.push(await open(i % 2 ? '/reassignments/events' : `/reassignments/${id}/events`));
      assert.deepEqual(
        streams.map((s) => s.status),
        Array(MAX_STREAMS).fill(200),
      );
      assert.equal(await openStreams(), MAX_STREAMS);
      const refused = await request(app).get('/reassignments/events');
      assert.equal(refused.status, 503);
      assert.equal(refused.body.type, 'https://kafka-admin-gateway.dev/problems/too-many-streams');
      assert.equal(refused.headers['retry-after'], '5');
      assert.match(await metrics.registry.metrics(), /kafka_gateway_event_streams_refused_total 1/);

      streams.pop()!.close();
      await eventually(async () => ((await openStreams()) === MAX_STREAMS - 1 ? true : undefined), 5000);
      const again = await open('/reassignments/events');
      streams.push(again);
      assert.equal(again.status, 200);
    } finally {
      for (const s of streams) s.close();
    }
    await eventually(async () => ((await openStreams()) === 0 ? true : undefined), 5000);
  });

  it('a draining server ends its streams (within a progress interval), so SIGTERM does not wait for them', async () => {
    const state = { draining: false };
    const drainingApp = appOverKafka({
      kafka: gw.kafka,
      metrics: createMetrics({ defaultMetrics: false }),
      reassignments: gw.runtime,
      changes: feed,
      state,
      streams: { maxStreams: MAX_STREAMS, heartbeatMs: 60_000, progressIntervalMs: PROGRESS_MS },
    });
    // The Kafka layer is the suite's: the server's shutdown must not close it.
    const running = await startServer({
      app: drainingApp,
      kafka: { close: async () => undefined },
      state,
      logger: silentLogger,
      port: 0,
      host: '127.0.0.1',
      shutdownTimeoutMs: 20_000,
    });
    const abort = new AbortController();
    const res = await fetch(`${running.url}/reassignments/events`, { signal: abort.signal });
    assert.equal(res.status, 200);
    const reading = res.text().then(
      () => 'ended by the server',
      () => 'aborted',
    );
    const started = Date.now();
    await running.shutdown('test');
    const took = Date.now() - started;
    assert.equal(await reading, 'ended by the server');
    assert.ok(took < 5000, `shutdown took ${took} ms with a stream open (SHUTDOWN_TIMEOUT_MS is 20 s)`);
    abort.abort();
  });

  it('GET /reassignments lists who, what and how much per reassignment (for the history)', async () => {
    const res = await request(app).get('/reassignments');
    assert.equal(res.status, 200);
    const r = res.body.reassignments.find((x: { id: string }) => x.id === id);
    assert.equal(r.state, 'completed');
    assert.equal(r.requestedBy, 'anonymous', 'authentication off: the anonymous admin');
    assert.deepEqual(r.counts, { total: 1, queued: 0, moving: 0, completed: 1, failed: 0, cancelled: 0 });
    assert.equal(r.progress.bytesTotal, 100_000);
    assert.equal(r.progress.percent, 100);
    assert.ok(r.endedAt && r.startedAt);
  });
});
