// The gateway as `npm run dev` runs it (src/main.ts, a child process) with
// GATEWAY_WORKER_THREAD=on, against the simulator: a reassignment end to end through the
// worker thread, every metric name in /metrics, and a crash of the worker (the test-only
// SIGUSR2 hook) seen by /readyz, answered with 503s, recovered from, with nothing lost.
import { strict as assert } from 'node:assert';
import { request } from 'node:http';
import { after, before, test } from 'node:test';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { eventually } from '../eventually.js';
import { spawnGateway, type GatewayProcess } from '../http/gateway-process.js';

let sim: Simulator;
let gw: GatewayProcess;
let url: string;

/** The restart delay after a crash: long enough for the test to see the gateway without its worker. */
const RESTART_MS = 1500;
const BROKERS = [1, 2, 3, 4];

before(async () => {
  sim = await startSimulator({ brokerIds: BROKERS });
  gw = spawnGateway({
    GATEWAY_WORKER_THREAD: 'on',
    GATEWAY_WORKER_TEST_HOOKS: '1',
    GATEWAY_WORKER_RESTART_MS: String(RESTART_MS),
    // A start of three partitions is "large" here (the default is 4 MiB): its exchange releases the worker's free heap pages.
    GATEWAY_WORKER_HEAP_RELEASE_BYTES: '1500',
    KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
    GATEWAY_AUTH: 'none',
    RECONCILE_INTERVAL_MS: '250',
  });
  url = await gw.url;
});

after(async () => {
  if (gw.child.exitCode === null) gw.child.kill('SIGTERM');
  await gw.exited;
  await sim.close();
});

/** The JSON fields these tests read (problems, reassignments, topics, throttles). */
interface Answer {
  type?: string;
  detail?: string;
  state?: string;
  throttlesRemovedAt?: string | null;
  counts?: { total: number; completed: number };
  errors?: { path: string }[];
  items?: unknown[];
  next?: string | null;
  reassignments?: { id: string }[];
  partitions?: { partition: number; replicas: number[] }[];
}

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; type: string; body: Answer; text: string }> {
  const res = await fetch(url + path, {
    method,
    ...(body !== undefined && { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, type, body: type.includes('json') ? (JSON.parse(text) as Answer) : {}, text };
}

let reassignmentId: string;

test('a reassignment end to end through the worker thread: POST, page, summary, completion, throttles removed', async () => {
  assert.equal((await call('GET', '/readyz')).status, 200);
  // Topics are the HTTP thread's own routes.
  const created = await call('POST', '/topics', { name: 'wt', partitions: 3, replicationFactor: 2 });
  assert.equal(created.status, 201, JSON.stringify(created.body));

  // A refusal is the worker app's, mapped as in-process: 400 problem+json naming the field.
  const bad = await call('POST', '/reassignments', { partitions: [{ topic: 'wt', partition: 0, replicas: 'two' }] });
  assert.equal(bad.status, 400);
  assert.match(bad.type, /application\/problem\+json/);
  assert.ok(
    bad.body.errors?.some((e) => e.path.startsWith('/body/partitions/0')),
    JSON.stringify(bad.body),
  );

  // Each partition to the two brokers it is not on (4 brokers, 2 replicas): every one moves.
  const before = await call('GET', '/topics/wt');
  const target = new Map((before.body.partitions ?? []).map((p) => [p.partition, BROKERS.filter((b) => !p.replicas.includes(b))]));
  const partitions = [0, 1, 2].map((p) => ({ topic: 'wt', partition: p, replicas: target.get(p) }));
  const post = await fetch(`${url}/reassignments`, {
    method: 'POST',
    body: JSON.stringify({ partitions, throttle: 50_000_000 }),
    headers: { 'content-type': 'application/json' },
  });
  const accepted = (await post.json()) as { id: string; summary: { counts: { total: number } } };
  assert.equal(post.status, 202, JSON.stringify(accepted));
  reassignmentId = accepted.id;
  assert.equal(post.headers.get('location'), `/reassignments/${reassignmentId}`);
  assert.equal(accepted.summary.counts.total, 3);
  // The exchange over GATEWAY_WORKER_HEAP_RELEASE_BYTES: the worker's next collections gave its free heap pages back.
  const released = await eventually(
    'a heap release after the start',
    async () => /^kafka_gateway_reassignment_worker_heap_releases_total ([1-9]\d*)$/m.exec((await call('GET', '/metrics')).text)?.[1],
    { timeoutMs: 10_000, everyMs: 100 },
  );
  assert.ok(Number(released) >= 1);
  const line = gw.logs.find((l) => l.msg === 'reassignment worker: free heap pages released');
  assert.ok(line && typeof line.collections === 'number' && typeof line.heapAfterMiB === 'number', JSON.stringify(line));

  const page = await call('GET', `/reassignments/${reassignmentId}/partitions?limit=2`);
  assert.equal(page.status, 200);
  assert.equal(page.body.items?.length, 2);
  assert.match(page.body.next ?? '', /cursor=/);
  const list = await call('GET', '/reassignments');
  assert.ok(list.body.reassignments?.some((r) => r.id === reassignmentId));

  const done = await eventually(
    'the reassignment completed with its throttles removed',
    async () => {
      const r = await call('GET', `/reassignments/${reassignmentId}`);
      return r.body.state === 'completed' && typeof r.body.throttlesRemovedAt === 'string' ? r.body : undefined;
    },
    { timeoutMs: 30_000, everyMs: 100 },
  );
  assert.equal(done.counts?.completed, 3);
  const throttles = await call('GET', '/throttles');
  assert.deepEqual(throttles.body, { rates: [], replicas: [] });
  const topic = await call('GET', '/topics/wt');
  assert.equal(topic.body.partitions?.length, 3);
  for (const p of topic.body.partitions ?? []) assert.deepEqual(p.replicas, target.get(p.partition));
});

test("summary GETs answered by the HTTP thread from the worker's posts: the worker's bytes and headers, and each change seen at once", async () => {
  const created = await call('POST', '/topics', { name: 'wt-summary', partitions: 1, replicationFactor: 2 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // 50 MB to copy at 1 KiB/s: it stays running while the test reads it.
  sim.seedBytes('wt-summary', 0, 50_000_000);
  const replicas = (await call('GET', '/topics/wt-summary')).body.partitions?.[0]?.replicas ?? [];
  const post = await call('POST', '/reassignments', {
    partitions: [{ topic: 'wt-summary', partition: 0, replicas: BROKERS.filter((b) => !replicas.includes(b)) }],
    throttle: 1024,
  });
  assert.equal(post.status, 202, post.text);
  const id = (JSON.parse(post.text) as { id: string }).id;
  const answeredHere = async () =>
    Number(
      /^kafka_gateway_reassignment_summary_answers_total\{answered_by="http_thread"\} (\d+)$/m.exec(
        (await call('GET', '/metrics')).text,
      )?.[1] ?? 0,
    );
  const before = await answeredHere();

  // ?detail=false asks the same (no detail) but has a query: the worker answers it. The two
  // differ only when a progress snapshot was written between them, so a few tries may be needed.
  await eventually(
    "a summary answered on the HTTP thread with the worker's bytes, type and ETag",
    async () => {
      const here = await fetch(`${url}/reassignments/${id}`);
      const there = await fetch(`${url}/reassignments/${id}?detail=false`);
      const [a, b] = [await here.text(), await there.text()];
      assert.equal(here.status, 200, a);
      if (a !== b) return undefined;
      assert.equal(here.headers.get('content-type'), there.headers.get('content-type'));
      assert.equal(here.headers.get('etag'), there.headers.get('etag'));
      assert.equal((JSON.parse(a) as Answer).state, 'running');
      return (await answeredHere()) > before ? true : undefined;
    },
    { timeoutMs: 20_000, everyMs: 50 },
  );

  // Read your writes: each change is in the next GET, whoever answers it, this instance's and
  // another's (a second gateway on the same cluster, whose write this worker has not read yet:
  // the posted summary is then behind the log's end, and the worker answers).
  const other = spawnGateway({
    KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
    GATEWAY_AUTH: 'none',
    RECONCILE_INTERVAL_MS: '250',
  });
  try {
    const otherUrl = await other.url;
    for (const [paused, by] of [
      [true, url],
      [false, otherUrl],
      [true, otherUrl],
      [false, url],
    ] as const) {
      const patched = await fetch(`${by}/reassignments/${id}`, {
        method: 'PATCH',
        body: JSON.stringify({ paused }),
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(patched.status, 200, await patched.text());
      const read = await call('GET', `/reassignments/${id}`);
      assert.equal((read.body as { paused?: boolean }).paused, paused, by === url ? 'this instance' : 'another instance');
    }
  } finally {
    other.child.kill('SIGTERM');
    await other.exited;
  }
  const cancelled = await call('DELETE', `/reassignments/${id}`);
  assert.ok(cancelled.status === 200 || cancelled.status === 202, cancelled.text);
  const read = await call('GET', `/reassignments/${id}`);
  assert.notEqual(read.body.state, 'running');
  await eventually(
    'the move cancelled',
    async () => ((await call('GET', `/reassignments/${id}`)).body.state === 'cancelled' ? true : undefined),
    {
      timeoutMs: 30_000,
      everyMs: 100,
    },
  );
  // Unknown ids are the worker's 404, as before.
  const unknown = await call('GET', '/reassignments/no-such-reassignment');
  assert.equal(unknown.status, 404);
});

test("/metrics has the worker thread's metrics and the HTTP thread's, each name once", async () => {
  const { text } = await call('GET', '/metrics');
  const names = [...text.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
  assert.equal(new Set(names).size, names.length, 'a metric name twice');
  for (const name of [
    'kafka_gateway_reconciler_runs_total', // the worker's
    'kafka_gateway_throttles_removed_total',
    'kafka_gateway_event_streams_open',
    'kafka_gateway_http_requests_total', // the HTTP thread's
    'kafka_gateway_process_resident_memory_bytes',
    'kafka_gateway_reassignment_worker_up',
  ])
    assert.ok(names.includes(name), name);
  // Both threads' Kafka requests under one name: the worker's AlterPartitionReassignments too. The
  // worker sends its observations in batches (every 250 ms), and a small move can complete and
  // lose its throttles in less, so the count is waited for.
  await eventually(
    "the worker's AlterPartitionReassignments counted in the HTTP thread's /metrics",
    async () =>
      /kafka_gateway_kafka_requests_total\{api="AlterPartitionReassignments",error="NONE"\} [1-9]/.test(
        (await call('GET', '/metrics')).text,
      ) || undefined,
    { timeoutMs: 10_000, everyMs: 100 },
  );
  assert.match(text, /kafka_gateway_reassignment_worker_up 1/);
  // The worker's heap, read from its isolate: some used, no more than reserved.
  const heap = (kind: string) =>
    Number(new RegExp(`^kafka_gateway_reassignment_worker_heap_bytes\\{kind="${kind}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
  assert.ok(heap('used') > 1_000_000 && heap('used') <= heap('total'), `worker heap used ${heap('used')}, total ${heap('total')}`);
  // And the memory outside it: buffers its objects hold (its Kafka answers), V8's own allocations.
  assert.ok(heap('external') > 0 && heap('malloced') > 0, `worker external ${heap('external')}, malloced ${heap('malloced')}`);

  // Every name the in-process gateway has: a second instance on the same cluster, left to the
  // default (auto), which keeps a cluster of a few partitions on the HTTP thread.
  const inProcess = spawnGateway({
    KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
    GATEWAY_AUTH: 'none',
    RECONCILE_INTERVAL_MS: '250',
  });
  try {
    const offText = await (await fetch(`${await inProcess.url}/metrics`)).text();
    const runtime = inProcess.logs.find((l) => l.msg === 'reassignment runtime');
    assert.equal(runtime?.workerThread, false, JSON.stringify(runtime));
    assert.match(String(runtime?.reason), /^auto: the cluster has \d+ partitions \(fewer than 50,000\)$/);
    assert.doesNotMatch(offText, /kafka_gateway_reassignment_worker_up/);
    const offNames = [...offText.matchAll(/^# TYPE (\S+)/gm)].map((m) => m[1]);
    assert.ok(offNames.length > 50, String(offNames.length));
    assert.deepEqual(
      offNames.filter((n) => !names.includes(n)),
      [],
    );
  } finally {
    inProcess.child.kill('SIGTERM');
    await inProcess.exited;
  }
});

test('an event stream through the worker thread: its snapshot arrives, and it ends in the worker when the client goes', async () => {
  const streamsOpen = async () => Number(/^kafka_gateway_event_streams_open (\d+)/m.exec((await call('GET', '/metrics')).text)?.[1]);
  const abort = new AbortController();
  const res = await fetch(`${url}/reassignments/${reassignmentId}/events`, { signal: abort.signal });
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = res.body!.getReader();
  let text = '';
  while (!text.includes(reassignmentId)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  assert.match(text, /^retry: \d+/);
  assert.ok(text.includes(`"id":"${reassignmentId}"`), text);
  assert.equal(await streamsOpen(), 1);
  abort.abort();
  await reader.cancel().catch(() => undefined);
  await eventually('the worker closed the stream', async () => ((await streamsOpen()) === 0 ? true : undefined));
});

/** A POST whose headers reached the gateway (100 Continue) and whose body never comes. */
function heldRequest(): { continued: Promise<void>; answer: Promise<{ status: number; body: string }> } {
  let continued!: () => void;
  const c = new Promise<void>((resolve) => (continued = resolve));
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${url}/reassignments`,
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '1000', expect: '100-continue' } },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('continue', () => continued());
    req.on('error', reject);
    req.flushHeaders();
  });
  return { continued: c, answer };
}

test('a crash of the worker: seen, /readyz 503 naming it, in-flight and new calls 503, restarted, nothing lost', async () => {
  const held = heldRequest();
  await held.continued;
  const exitsBefore = gw.logs.filter((l) => l.msg === 'reassignment worker thread ended; restarting it').length;
  gw.child.kill('SIGUSR2');

  // The request in flight is answered 503 (the worker ended before answering).
  const inFlight = await held.answer;
  assert.equal(inFlight.status, 503);
  assert.match((JSON.parse(inFlight.body) as Answer).type ?? '', /reassignment-worker-unavailable$/);

  await eventually('the crash logged', () =>
    gw.logs.filter((l) => l.msg === 'reassignment worker thread ended; restarting it').length > exitsBefore ? true : undefined,
  );
  assert.ok(gw.logs.some((l) => l.msg === 'reassignment worker thread failed' && String(l.err).includes('crash requested by a test')));
  // Until the restart: not ready, with the reason; the worker's routes 503; the HTTP thread's answer.
  const ready = await call('GET', '/readyz');
  assert.equal(ready.status, 503);
  assert.match(ready.body.detail ?? '', /the reassignment worker thread is restarting \(it failed: .*crash requested by a test/);
  const list = await call('GET', '/reassignments');
  assert.equal(list.status, 503);
  assert.equal(list.body.type?.split('/').pop(), 'reassignment-worker-unavailable');
  assert.equal((await call('GET', '/healthz')).status, 200);
  assert.equal((await call('GET', '/topics/wt')).status, 200);

  // Restarted: ready again, and the reassignment is still there (the state is in Kafka).
  await eventually('ready again', async () => ((await call('GET', '/readyz')).status === 200 ? true : undefined), {
    timeoutMs: 60_000,
    everyMs: 100,
  });
  const again = await call('GET', `/reassignments/${reassignmentId}`);
  assert.equal(again.status, 200);
  assert.equal(again.body.state, 'completed');
  const { text: metrics } = await call('GET', '/metrics');
  assert.match(metrics, /kafka_gateway_reassignment_worker_starts_total 2/);
});

test('GATEWAY_WORKER_THREAD=auto starts the worker thread on a cluster of at least GATEWAY_WORKER_THREAD_MIN_PARTITIONS partitions', async () => {
  // Every topic, the state topic included: the threshold is the cluster's whole size.
  const topics = JSON.parse((await call('GET', '/topics?internal=true')).text) as { topics: { partitions: number }[] };
  const partitions = topics.topics.reduce((sum, t) => sum + t.partitions, 0);
  assert.ok(partitions > 1, `the state topic and the earlier test's topic`);
  const auto = spawnGateway({
    GATEWAY_WORKER_THREAD: 'auto',
    GATEWAY_WORKER_THREAD_MIN_PARTITIONS: String(partitions),
    GATEWAY_WORKER_HEAP_GROWING_PERCENT: '15',
    KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
    GATEWAY_AUTH: 'none',
    RECONCILE_INTERVAL_MS: '250',
  });
  try {
    const autoUrl = await auto.url;
    const runtime = auto.logs.find((l) => l.msg === 'reassignment runtime');
    assert.equal(runtime?.workerThread, true, JSON.stringify(runtime));
    assert.equal(
      runtime?.reason,
      `auto: the cluster has ${partitions.toLocaleString('en-US')} partitions (at least ${partitions.toLocaleString('en-US')})`,
    );
    const growing = auto.logs.find((l) => l.msg === 'heap growing percent set for the worker thread');
    assert.equal(growing?.heapGrowingPercent, 15, JSON.stringify(growing));
    // The reassignment side answers from the worker: its metric, and a reassignment list.
    assert.match(await (await fetch(`${autoUrl}/metrics`)).text(), /kafka_gateway_reassignment_worker_up 1/);
    assert.equal((await fetch(`${autoUrl}/reassignments`)).status, 200);
  } finally {
    auto.child.kill('SIGTERM');
    await auto.exited;
  }
});

test('SIGTERM: the gateway drains, stops its worker and exits 0', async () => {
  gw.child.kill('SIGTERM');
  assert.equal(await gw.exited, 0);
  assert.ok(gw.logs.some((l) => l.msg === 'stopped'));
  // A deliberate stop is not a crash: no restart was logged for it.
  assert.equal(gw.logs.filter((l) => l.msg === 'reassignment worker thread ended; restarting it').length, 1);
});
