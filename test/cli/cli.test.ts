// The CLI as a user runs it: bin/kafka-admin-gateway.mjs as a child process, against a
// gateway on the embedded simulator over real HTTP, with bearer tokens per role.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createClient, type GatewayClient } from '../../src/client/api.js';
import { startDemoGateway, type DemoGateway } from './demo-gateway.js';

const BIN = fileURLToPath(new URL('../../bin/kafka-admin-gateway.mjs', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
function kag(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describe('kag (the CLI) against a gateway', () => {
  let gw: DemoGateway;
  let dir: string;
  let env: Record<string, string>;
  // Setup and checks go straight to the API; only the behaviour under test runs the CLI
  // (each run is a Node process start, ~0.5-2 s on a busy machine).
  let api: GatewayClient;

  before(async () => {
    gw = await startDemoGateway();
    api = createClient({ baseUrl: gw.url, token: gw.token.operator });
    dir = mkdtempSync(join(tmpdir(), 'kag-'));
    env = { KAG_URL: gw.url, KAG_TOKEN: gw.token.operator };
  });
  after(() => gw.stop());

  it('--help exits 0 and lists the commands; no command is a usage error (2)', async () => {
    // Independent runs in parallel: each is a process start.
    const [help, none, bad] = await Promise.all([kag(['--help']), kag([]), kag(['--output', 'xml', 'topics'], env)]);
    assert.equal(help.code, 0);
    for (const c of ['topics', 'brokers', 'plan decommission', 'reassign execute', 'reassign status', 'throttles', 'quotas'])
      assert.ok(help.stdout.includes(c), c);
    assert.equal(none.code, 2);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--output must be table or json/);
  });

  it('whoami, topics and brokers in table and json; URL and token from flags as from the environment', async () => {
    const [me, topics, brokersRun] = await Promise.all([
      kag(['--url', gw.url, '--token', gw.token.viewer, '--output', 'json', 'whoami']),
      kag(['topics'], env),
      kag(['-o', 'json', 'brokers'], env),
    ]);
    assert.equal(me.code, 0, me.stderr);
    assert.deepEqual(JSON.parse(me.stdout), { id: 'viewer-user', role: 'viewer', authentication: 'enforced' });
    assert.equal(topics.code, 0, topics.stderr);
    assert.match(topics.stdout, /^orders\s+6\s+2/m);

    const brokers = JSON.parse(brokersRun.stdout) as { brokers: { id: number; replicas: number; leaders: number }[] };
    assert.deepEqual(
      brokers.brokers.map((b) => b.id),
      [0, 1, 2, 3],
    );
    // Every replica of every topic is counted once on its broker.
    // Internal topics too (the gateway's state topic has replicas on the brokers as well).
    const res = await fetch(`${gw.url}/topics?internal=true`, { headers: { authorization: `Bearer ${gw.token.operator}` } });
    const list = (await res.json()) as { topics: { partitions: number; replicationFactor: number }[] };
    const replicas = list.topics.reduce((a, t) => a + t.partitions * t.replicationFactor, 0);
    assert.equal(
      brokers.brokers.reduce((a, b) => a + b.replicas, 0),
      replicas,
    );
  });

  it('no token: 401 as a readable problem and exit 1', async () => {
    const r = await kag(['topics'], { KAG_URL: gw.url });
    assert.equal(r.code, 1);
    assert.match(r.stderr, /401 Authentication required/);
  });

  it('a token that starts with a dash is the value of --token, not an option (1 base64url token in 64)', async () => {
    const r = await kag(['--url', gw.url, '--token', '-not-a-token', 'whoami']);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /401 Invalid credentials/);
  });

  it("reassign execute (Kafka file format, throttled) --watch draws bars to 100 % and exits 0; the rollback file is Kafka's format; the throttle goes", async () => {
    const file = join(dir, 'move.json');
    const rollback = join(dir, 'rollback.json');
    const before = await api.topic('orders');
    const current = before.partitions.find((p) => p.partition === 1)!.replicas;
    const target = [0, 1, 2, 3].filter((b) => !current.includes(b)).slice(0, 2);
    writeFileSync(
      file,
      JSON.stringify({ version: 1, partitions: [{ topic: 'orders', partition: 1, replicas: target, log_dirs: ['any', 'any'] }] }),
    );

    const dry = await kag(['reassign', 'execute', '--reassignment-json-file', file, '--throttle', '8388608', '--validate-only'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Valid\. 1 partition\(s\), 48\.0 MiB to copy/);

    const r = await kag(
      [
        'reassign',
        'execute',
        '--reassignment-json-file',
        file,
        '--throttle',
        '8388608',
        '--rollback-file',
        rollback,
        '--watch',
        '--interval',
        '0.3',
      ],
      env,
    );
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /Started reassignment (r-\S+)/);
    assert.match(r.stdout, /running\s+\[█*░+\]/, 'a partial bar while running');
    assert.match(r.stdout, /completed \[█{24}\] 100\.0%/);
    assert.match(r.stdout, /orders-1\s+\[/, 'a bar per moving partition');
    assert.deepEqual(JSON.parse(readFileSync(rollback, 'utf8')), {
      version: 1,
      partitions: [{ topic: 'orders', partition: 1, replicas: current, log_dirs: current.map(() => 'any') }],
    });

    const id = /Started reassignment (r-\S+)/.exec(r.stdout)![1];
    const status = await api.reassignment(id);
    assert.equal(status.state, 'completed');
    assert.equal(status.progress.percent, 100);
    // The gateway removes its throttles within a reconcile interval or so of the end.
    let throttles = await api.throttles();
    for (let i = 0; i < 200 && (throttles.rates.length || throttles.replicas.length); i++) {
      await new Promise((res) => setTimeout(res, 50)); // polling the API, not a sleep standing in for an event
      throttles = await api.throttles();
    }
    assert.deepEqual(throttles, { rates: [], replicas: [] });
    const shown = await kag(['throttles'], env);
    assert.equal(shown.code, 0);
    assert.match(shown.stdout, /Rates \(bytes\/s\):\n\(none\)/);

    // The rollback file drops into `reassign execute` as it is.
    const back = await kag(['reassign', 'execute', '--reassignment-json-file', rollback, '--watch', '--interval', '0.3'], env);
    assert.equal(back.code, 0, back.stderr);
    const after = await api.topic('orders');
    assert.deepEqual(after.partitions.find((p) => p.partition === 1)!.replicas, current);
  });

  it('status --watch exits non-zero (3) when the reassignment ends cancelled; a viewer may not cancel (403, exit 1)', async () => {
    const file = join(dir, 'slow.json');
    const t = await api.topic('orders');
    const current = t.partitions.find((p) => p.partition === 2)!.replicas;
    const target = [0, 1, 2, 3].filter((b) => !current.includes(b)).slice(0, 2);
    writeFileSync(file, JSON.stringify({ version: 1, partitions: [{ topic: 'orders', partition: 2, replicas: target }] }));
    const start = await kag(['-o', 'json', 'reassign', 'execute', '--reassignment-json-file', file, '--throttle', '1024'], env);
    assert.equal(start.code, 0, start.stderr);
    const id = (JSON.parse(start.stdout) as { id: string }).id;

    const denied = await kag(['reassign', 'cancel', id], { KAG_URL: gw.url, KAG_TOKEN: gw.token.viewer });
    assert.equal(denied.code, 1);
    assert.match(denied.stderr, /403 Insufficient role: cancelReassignment requires the operator role; viewer-user has viewer/);

    const watching = kag(['reassign', 'status', id, '--watch', '--interval', '0.2'], env);
    const cancel = await kag(['reassign', 'cancel', id], env);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.match(cancel.stdout, /cancelled/);
    const w = await watching;
    assert.equal(w.code, 3, w.stdout + w.stderr);
    assert.match(w.stderr, /cancelled/);
  });

  it('plan answers, and a missing reassignment is a readable 404 (exit 1)', async () => {
    const [plan, missing] = await Promise.all([
      kag(['plan', 'decommission', '--brokers', '3'], env),
      kag(['reassign', 'status', 'r-nope'], env),
    ]);
    assert.equal(plan.code, 0, plan.stderr);
    assert.match(plan.stdout, /decommission: \d+ replica move\(s\)/);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /404 Reassignment not found/);
  });

  it('paced execute (--per-broker/--cluster/--order), pause, concurrency, resume; status --watch shows queued/moving/completed and exits 0', async () => {
    // Every payments partition gets the broker it lacks in place of its last replica: three moves,
    // one at a time (--cluster 1), 8 MiB each at 2 MiB/s.
    const t = await api.topic('payments');
    const moves = t.partitions.map((p) => ({
      topic: 'payments',
      partition: p.partition,
      replicas: [...p.replicas.slice(0, -1), [0, 1, 2, 3].find((b) => !p.replicas.includes(b))!],
    }));
    const file = join(dir, 'paced.json');
    writeFileSync(file, JSON.stringify({ version: 1, partitions: moves }));

    const usage = await kag(['reassign', 'execute', '--reassignment-json-file', file, '--order', 'biggest'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--order must be size-asc, size-desc, as-given/);

    const start = await kag(
      [
        '-o',
        'json',
        'reassign',
        'execute',
        '--reassignment-json-file',
        file,
        '--throttle',
        String(2 * 1024 * 1024),
        '--per-broker',
        '1',
        '--cluster',
        '1',
        '--order',
        'as-given',
      ],
      env,
    );
    assert.equal(start.code, 0, start.stderr);
    const accepted = JSON.parse(start.stdout) as {
      id: string;
      summary: { concurrency: { perBroker: number; cluster: number }; order: string; counts: { queued: number; moving: number } };
    };
    const id = accepted.id;
    assert.equal(accepted.summary.concurrency.perBroker, 1);
    assert.equal(accepted.summary.concurrency.cluster, 1);
    assert.equal(accepted.summary.order, 'as-given');
    assert.ok(accepted.summary.counts.queued >= 2, JSON.stringify(accepted.summary.counts));

    const paused = await kag(['reassign', 'pause', id], env);
    assert.equal(paused.code, 0, paused.stderr);
    assert.match(paused.stdout, new RegExp(`^${id}: paused \\(moves in flight finish, none start`));
    assert.equal((await api.reassignment(id)).state, 'paused');
    const status = await kag(['reassign', 'status', id], env);
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /paused/);
    assert.match(status.stdout, /partitions: \d queued, \d moving, \d completed, 0 failed \(of 3\)/);
    assert.match(status.stdout, /pacing: at most 1 per broker, at most 1 in the cluster, as-given {2}PAUSED/);

    const [badBound, conc] = [
      await kag(['reassign', 'concurrency', id, '--per-broker', '0'], env),
      await kag(['-o', 'json', 'reassign', 'concurrency', id, '--per-broker', '2', '--cluster', 'none'], env),
    ];
    assert.equal(badBound.code, 2);
    assert.match(badBound.stderr, /--per-broker takes a positive whole number/);
    assert.equal(conc.code, 0, conc.stderr);
    assert.deepEqual((JSON.parse(conc.stdout) as { concurrency: unknown }).concurrency, { perBroker: 2, cluster: null });
    const summary = await api.reassignment(id);
    assert.equal(summary.concurrency?.perBroker, 2);
    assert.equal(summary.state, 'paused', 'changing the bounds does not resume it');

    const resumed = await kag(['reassign', 'resume', id], env);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stdout, new RegExp(`^${id}: running;`));

    const w = await kag(['reassign', 'status', id, '--watch', '--interval', '0.3'], env);
    assert.equal(w.code, 0, w.stdout + w.stderr);
    assert.match(w.stdout, /partitions: \d queued, \d moving, \d completed, 0 failed \(of 3\)/);
    assert.match(w.stdout, /completed \[█{24}\] 100\.0%/);
    assert.match(w.stdout, /partitions: 0 queued, 0 moving, 3 completed, 0 failed \(of 3\)/);
    for (const m of moves)
      assert.deepEqual((await api.topic('payments')).partitions.find((p) => p.partition === m.partition)!.replicas, m.replicas);

    // --watch with --output json: one JSON object per poll, the last one completed.
    const j = await kag(['-o', 'json', 'reassign', 'status', id, '--watch'], env);
    assert.equal(j.code, 0, j.stderr);
    const last = JSON.parse(j.stdout.trim().split('\n').pop()!) as { state: string; counts: { completed: number } };
    assert.equal(last.state, 'completed');
    assert.equal(last.counts.completed, 3);
  });
});
