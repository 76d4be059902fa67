// `kag reassign status ID --follow`: a reassignment followed over the gateway's event stream
// (no polling), run as a user runs it (bin/kafka-admin-gateway.mjs, a child process) against a
// gateway on the embedded simulator; and the fallback to polling when the gateway has no
// stream, with a stub fetch (what an older gateway answers).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient, type GatewayClient, type Reassignment } from '../../src/client/api.js';
import { followReassignment } from '../../src/cli/follow.js';
import { startDemoGateway, type DemoGateway } from './demo-gateway.js';
import { eventually } from '../eventually.js';

const BIN = fileURLToPath(new URL('../../bin/kafka-admin-gateway.mjs', import.meta.url));

function kag(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const spareBroker = (replicas: number[]) => [0, 1, 2, 3].find((b) => !replicas.includes(b))!;

const until = <T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> =>
  eventually(what, check, { timeoutMs, everyMs: 100 });

describe('kag reassign status --follow (SSE)', () => {
  let gw: DemoGateway;
  let api: GatewayClient;
  let viewer: Record<string, string>;

  /** GET /reassignments/{id} requests the gateway has answered (its own counter). */
  const metrics = async () => (await fetch(`${gw.url}/metrics`, { headers: { authorization: `Bearer ${gw.token.viewer}` } })).text();
  const summaryGets = async () => {
    const text = await metrics();
    return [
      ...text.matchAll(/kafka_gateway_http_requests_total\{method="GET",route="\/reassignments\/\{id\}",status="\d+"\} (\d+)/g),
    ].reduce((n, m) => n + Number(m[1]), 0);
  };

  before(async () => {
    gw = await startDemoGateway();
    api = createClient({ baseUrl: gw.url, token: gw.token.operator });
    viewer = { KAG_URL: gw.url, KAG_TOKEN: gw.token.viewer };
  });
  after(() => gw.stop());

  it('follows a running reassignment from the stream, without polling, and exits 3 when it is cancelled', async () => {
    const replicas = (await api.topic('orders')).partitions.find((p) => p.partition === 5)!.replicas;
    const { id } = (await api.startReassignment({
      partitions: [{ topic: 'orders', partition: 5, replicas: [replicas[0], spareBroker(replicas)] }],
      throttle: 1024,
    })) as { id: string };
    const getsBefore = await summaryGets();
    const following = kag(['-o', 'json', 'reassign', 'status', id, '--follow'], viewer);
    // Cancelled once the stream is open (the gauge of open streams says so).
    await until(async () => (/kafka_gateway_event_streams_open [1-9]/.test(await metrics()) ? true : undefined), "the CLI's stream open");
    await api.cancelReassignment(id);
    const f = await following;
    assert.equal(f.code, 3, f.stdout + f.stderr);
    assert.match(f.stderr, new RegExp(`reassignment ${id} cancelled`));
    const lines = f.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; eventId?: string; id: string; state: string });
    assert.equal(lines[0].event, 'snapshot');
    assert.equal(lines[0].state, 'running');
    const last = lines.at(-1)!;
    assert.deepEqual([last.event, last.state, last.id], ['cancelled', 'cancelled', id]);
    assert.equal(last.eventId, `${id}:cancelled`, "the change feed's id");
    assert.equal(await summaryGets(), getsBefore, 'no GET /reassignments/{id}: the stream carried every summary');
  });

  it('a finished reassignment: one summary with how long it took, no rate or ETA; exit 0', async () => {
    const replicas = (await api.topic('orders')).partitions.find((p) => p.partition === 3)!.replicas;
    const { id } = (await api.startReassignment({
      partitions: [{ topic: 'orders', partition: 3, replicas: [replicas[0], spareBroker(replicas)] }],
    })) as { id: string };
    await until(async () => ((await api.reassignment(id)).state === 'completed' ? true : undefined), `${id} completed`);
    const f = await kag(['reassign', 'status', id, '--follow'], viewer);
    assert.equal(f.code, 0, f.stderr);
    assert.match(f.stdout, new RegExp(`^${id}\\s+completed .*100\\.0%.* took \\d`, 'm'));
    assert.doesNotMatch(f.stdout, /ETA|\/s /);
    const missing = await kag(['reassign', 'status', 'r-nope', '--follow'], viewer);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /404/);
  });
});

describe('followReassignment without a stream on the gateway', () => {
  const problem = (status: number, type: string) =>
    new Response(JSON.stringify({ type: `https://kafka-admin-gateway.dev/problems/${type}`, title: type, status, detail: type }), {
      status,
      headers: { 'content-type': 'application/problem+json' },
    });
  const io = () => {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), isTTY: false } };
  };
  const base = { baseUrl: 'http://gateway.invalid', token: 't', id: 'r-1', output: 'table', failedExit: (_r: Reassignment) => null };

  it('an older gateway (404 route-not-found) or a full one (503, twice): polls instead', async () => {
    for (const answer of [() => problem(404, 'route-not-found'), () => problem(503, 'too-many-streams')]) {
      const o = io();
      let polled = 0;
      let asked = 0;
      const code = await followReassignment({
        ...base,
        io: o.io,
        // (The 503 carries no Retry-After: the reconnection waits the default 3 s once.)
        fetch: async () => (asked++, answer()),
        fallback: async () => (polled++, 7),
      });
      assert.equal(code, 7, "the polling fallback's exit code");
      assert.equal(polled, 1);
      assert.match(o.err.join('\n'), /event stream unavailable: (404|503).*polling instead/);
      assert.ok(asked >= 1);
    }
  });

  it('an unknown reassignment (404 reassignment-not-found) is an error, not a fallback', async () => {
    const o = io();
    await assert.rejects(
      followReassignment({
        ...base,
        io: o.io,
        fetch: async () => problem(404, 'reassignment-not-found'),
        fallback: async () => assert.fail('no fallback for an unknown id'),
      }),
      /404/,
    );
  });
});
