// When the reassignment worker releases its free heap pages (src/worker/heap-releaser.ts): after
// large exchanges only, once the worker is idle (or at the longest wait), one at a time; and the
// worker's wiring over a real HTTP server (requests in flight, event streams aside, the metric).
import { strict as assert } from 'node:assert';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { setImmediate as turn } from 'node:timers/promises';
import { test, type TestContext } from 'node:test';
import { Registry } from 'prom-client';
import type { HeapRelease } from '../../src/heap-release.js';
import { HeapReleaser, requestsInFlight, workerHeapReleaser } from '../../src/worker/heap-releaser.js';
import { eventually } from '../eventually.js';

const RELEASED: HeapRelease = { seconds: 0.1, heapBefore: 200, heapAfter: 100 };
const QUIET = 100;
const MAX_WAIT = 10_000;

const mocked = new WeakSet<TestContext>();

/** A releaser on a clock the test moves, whose releases end when the test says. */
function setup(t: TestContext, minBytes = 1000) {
  if (!mocked.has(t)) t.mock.timers.enable({ apis: ['setTimeout'] });
  mocked.add(t);
  let now = 0;
  let busy = false;
  const started: (() => void)[] = [];
  const released: HeapRelease[] = [];
  const errors: unknown[] = [];
  let fail = false;
  const releaser = new HeapReleaser({
    release: () => new Promise<HeapRelease>((resolve, reject) => started.push(() => (fail ? reject(new Error('no')) : resolve(RELEASED)))),
    minBytes,
    quietMs: QUIET,
    maxWaitMs: MAX_WAIT,
    busy: () => busy,
    onReleased: (r) => released.push(r),
    onError: (e) => errors.push(e),
    now: () => now,
  });
  return {
    releaser,
    started,
    released,
    errors,
    failNext: () => (fail = true),
    setBusy: (b: boolean) => (busy = b),
    /** Moves the clock, runs the timers due, lets a release's promise settle. */
    advance: async (ms: number) => {
      now += ms;
      t.mock.timers.tick(ms);
      await turn();
    },
  };
}

test('an exchange below the size asks nothing; one at or above it releases once the worker has been idle', async (t) => {
  const s = setup(t);
  s.releaser.opened();
  s.releaser.exchanged(999);
  await s.advance(MAX_WAIT * 2);
  assert.equal(s.started.length, 0);
  s.releaser.opened();
  s.releaser.exchanged(1000);
  await s.advance(QUIET - 1);
  assert.equal(s.started.length, 0, 'not before the quiet time');
  await s.advance(1);
  assert.equal(s.started.length, 1);
  s.started[0]();
  await turn();
  assert.deepEqual(s.released, [RELEASED]);
  await s.advance(MAX_WAIT * 2);
  assert.equal(s.started.length, 1, 'one release for one peak');

  // An exchange that begins within the quiet time (before its request is read) restarts it.
  s.releaser.exchanged(1000);
  await s.advance(QUIET - 10);
  s.releaser.opened();
  await s.advance(10);
  assert.equal(s.started.length, 1);
  await s.advance(QUIET - 10);
  assert.equal(s.started.length, 2);
});

test('a dry run, then its start: nothing while the start is in flight, one release after both', async (t) => {
  const s = setup(t);
  s.releaser.opened();
  s.releaser.exchanged(5000); // the dry run's answer
  s.releaser.opened(); // its start, sent at once
  s.setBusy(true);
  await s.advance(2000);
  assert.equal(s.started.length, 0, 'not during the start');
  s.setBusy(false);
  s.releaser.exchanged(5000);
  s.releaser.opened(); // a GET of the start's first page, right after it
  await s.advance(QUIET / 2);
  s.releaser.exchanged(300);
  await s.advance(QUIET - 1);
  assert.equal(s.started.length, 0, 'each exchange begun or ended restarts the quiet time');
  await s.advance(1);
  assert.equal(s.started.length, 1);
});

test('a request in flight all along: released at the longest wait after the first large exchange', async (t) => {
  const s = setup(t);
  s.setBusy(true);
  s.releaser.exchanged(5000);
  for (let elapsed = 0; elapsed < MAX_WAIT - 500; elapsed += 500) {
    s.releaser.opened();
    await s.advance(500);
  }
  assert.equal(s.started.length, 0);
  await s.advance(500);
  assert.equal(s.started.length, 1);
});

test('one release at a time: what ends while one runs is released after it', async (t) => {
  const s = setup(t);
  s.releaser.exchanged(5000);
  await s.advance(QUIET);
  assert.equal(s.started.length, 1);
  s.releaser.exchanged(5000);
  s.releaser.exchanged(5000);
  await s.advance(QUIET * 5);
  assert.equal(s.started.length, 1, 'not while one runs');
  s.started[0]();
  await turn();
  await s.advance(0);
  assert.equal(s.started.length, 2, 'the quiet time had passed: at once');
  s.started[1]();
  await turn();
  await s.advance(MAX_WAIT * 2);
  assert.equal(s.started.length, 2);
  assert.equal(s.released.length, 2);
});

test('a failed release is reported and the next is still made; 0 bytes turns it off; stop() ends it', async (t) => {
  const s = setup(t);
  s.failNext();
  s.releaser.exchanged(1000);
  await s.advance(QUIET);
  s.started[0]();
  await turn();
  assert.equal(s.errors.length, 1);
  assert.equal(s.released.length, 0);
  s.releaser.exchanged(1000);
  await s.advance(QUIET);
  assert.equal(s.started.length, 2);

  const off = setup(t, 0);
  off.releaser.exchanged(1e9);
  await off.advance(MAX_WAIT * 2);
  assert.equal(off.started.length, 0);

  const stopped = setup(t);
  stopped.releaser.exchanged(1000);
  stopped.releaser.stop();
  await stopped.advance(MAX_WAIT * 2);
  stopped.releaser.exchanged(1000);
  await stopped.advance(MAX_WAIT * 2);
  assert.equal(stopped.started.length, 0);
});

/** A server with /events (an event stream that stays open), /slow (answered when told) and a 5,000-byte answer. */
async function testServer() {
  const slow: (() => void)[] = [];
  const server = createServer((req, res: ServerResponse) => {
    if (req.url === '/events') {
      // As the gateway's event streams set it (src/http/routes/reassignment-events.ts).
      res.setHeader('content-type', 'text/event-stream; charset=utf-8');
      res.writeHead(200);
      res.write(': open\n\n');
    } else if (req.url === '/slow') slow.push(() => res.end('done'));
    else res.end(Buffer.alloc(5000, 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  /** Resolves with the answer's head; `body` waits for its end. */
  const get = (path: string) =>
    new Promise<{ body: Promise<void>; destroy: () => void }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path, agent: false }, (res) =>
        resolve({ body: new Promise<void>((done) => res.on('end', done).resume()), destroy: () => req.destroy() }),
      );
      req.on('error', reject);
      req.end();
    });
  const close = async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  return { server, slow, get, close };
}

test('requests in flight: a request until its answer ends, never an open event stream', async () => {
  const t = await testServer();
  const busy = requestsInFlight(t.server);
  try {
    assert.equal(busy(), false);
    const events = await t.get('/events');
    assert.equal(busy(), false, 'an event stream is not in flight');
    const slow = t.get('/slow');
    await eventually('the slow request received', async () => (t.slow.length === 1 ? true : undefined), { timeoutMs: 5000, everyMs: 5 });
    assert.equal(busy(), true);
    t.slow[0]();
    await (
      await slow
    ).body;
    await eventually('the slow request done', async () => (busy() ? undefined : true), { timeoutMs: 5000, everyMs: 5 });
    events.destroy();
  } finally {
    await t.close();
  }
});

test("the worker's releaser over a server: a large exchange is released once idle, counted and logged", async () => {
  const t = await testServer();
  const registry = new Registry();
  const lines: string[] = [];
  const logger = { info: (m: string) => void lines.push(m), warn: (m: string) => void lines.push(m), error: () => undefined };
  const releaser = workerHeapReleaser({ server: t.server, registry, logger, minBytes: 4000, quietMs: 20 });
  // As the worker does with its port streams: each connection is one exchange.
  t.server.on('connection', (socket: Socket) => {
    releaser.opened();
    socket.once('close', () => releaser.exchanged(socket.bytesRead + socket.bytesWritten));
  });
  const count = async () => {
    const metric = await registry.getSingleMetric('kafka_gateway_reassignment_worker_heap_release_seconds')?.get();
    return metric?.values.find((v) => (v as { metricName?: string }).metricName?.endsWith('_count'))?.value ?? 0;
  };
  try {
    await (
      await t.get('/big')
    ).body;
    await eventually('a release after the large exchange', async () => ((await count()) === 1 ? true : undefined), {
      timeoutMs: 5000,
      everyMs: 20,
    });
    assert.deepEqual(lines, ['reassignment worker: free heap pages released']);
  } finally {
    releaser.stop();
    await t.close();
  }
});
