// Two gateway instances (src/main.ts as child processes) on one simulator, one webhook. The
// receiver holds the deliveries of `started` unanswered; the instance sending one (the one
// whose kafka_gateway_webhook_delivering is 1) is SIGKILLed while the reassignment runs. The
// survivor takes over once the dead holder's lease is over and delivers what is not recorded:
// the receiver gets every change of the reassignment, exactly once by id after deduplication,
// each signed.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { FAST_KAFKA_ENV } from '../http/helpers.js';
import { eventually } from '../eventually.js';
import { signed, startReceiver } from './webhook-receiver.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const LEASE_MS = 8000;

interface Child {
  name: string;
  proc: ChildProcess;
  url: string;
  exited: Promise<unknown>;
}

async function startChild(sim: Simulator, name: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...FAST_KAFKA_ENV,
      KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
      GATEWAY_AUTH: 'none',
      GATEWAY_INSTANCE_ID: name,
      PORT: '0',
      HOST: '127.0.0.1',
      RECONCILE_INTERVAL_MS: '100',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_ATTEMPT_TIMEOUT_MS: '3000',
      WEBHOOK_LEASE_MS: String(LEASE_MS),
      WEBHOOK_BACKOFF_BASE_MS: '100',
      WEBHOOK_BACKOFF_MAX_MS: '500',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(proc, 'exit');
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Kafka admin gateway: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then(() => reject(new Error(`gateway ${name} exited before listening:\n${out}`)));
  });
  return { name, proc, url, exited };
}

async function delivering(c: Child): Promise<boolean> {
  const text = (await request(c.url).get('/metrics')).text;
  return /^kafka_gateway_webhook_delivering 1$/m.test(text);
}

let sim: Simulator;
const children: Child[] = [];
before(async () => {
  sim = await startSimulator({ brokers: 4 });
});
after(async () => {
  for (const c of children) if (c.proc.exitCode === null && c.proc.signalCode === null) c.proc.kill('SIGKILL');
  await sim?.close();
});

describe('webhook delivery across a crash of the delivering instance', () => {
  it('the survivor delivers every change; after dedupe by id, each exactly once', async () => {
    // Every `started` delivery hangs until an instance was killed (an attempt that times out is
    // tried again: whoever holds the claim is in the middle of one nearly all the time).
    const hung: (() => void)[] = [];
    let reassignmentId = '';
    let killed = false;
    const rx = await startReceiver((_n, d) => {
      if (!killed && d.headers['webhook-id'] === `${reassignmentId}:started`) return new Promise<number>((r) => hung.push(() => r(200)));
      return 200;
    });
    const hangs = () => hung.length > 0;
    try {
      const [a, b] = await Promise.all([startChild(sim, 'gw-a'), startChild(sim, 'gw-b')]);
      children.push(a, b);
      const created = await request(a.url)
        .post('/webhooks')
        .send({ url: rx.url, events: ['created', 'started', 'completed', 'cancelled', 'failed'] });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const secret = created.body.secret as string;
      const webhookId = created.body.webhook.id as string;
      // Both instances know it (the state topic).
      await eventually(async () => ((await request(b.url).get(`/webhooks/${webhookId}`)).status === 200 ? true : undefined));

      const assignments = [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 0],
      ];
      const topic = await request(a.url).post('/topics').send({ name: 'crash-hooked', assignments });
      assert.equal(topic.status, 201, JSON.stringify(topic.body));
      // ~12 s to copy at the throttle: the kill lands while it runs.
      for (let p = 0; p < assignments.length; p++) sim.seedBytes('crash-hooked', p, 600_000);
      const targets = assignments.map(([x, y], partition) => ({ topic: 'crash-hooked', partition, replicas: [x, (y + 1) % 4] }));
      const started = await request(a.url).post('/reassignments').send({ partitions: targets, throttle: 50_000 });
      assert.equal(started.status, 202, JSON.stringify(started.body));
      reassignmentId = started.body.id as string;

      // The delivery of `started` hangs at the receiver: its sender holds the claim.
      await eventually(async () => (hangs() ? true : undefined), 20_000);
      const holders = await eventually(
        async () => {
          const on = [];
          for (const c of [a, b]) if (await delivering(c)) on.push(c);
          return on.length > 0 ? on : undefined;
        },
        5000,
        20,
      );
      assert.equal(holders.length, 1, 'one instance delivers at a time');
      const victim = holders[0];
      const survivor = victim === a ? b : a;
      victim.proc.kill('SIGKILL');
      killed = true;
      await victim.exited;
      assert.notEqual(
        (await request(survivor.url).get(`/reassignments/${reassignmentId}`)).body.state,
        'completed',
        'killed mid-reassignment',
      );

      // The survivor: after the dead holder's lease, `started` again, then `completed`.
      await eventually(
        async () => ((await request(survivor.url).get(`/reassignments/${reassignmentId}`)).body.state === 'completed' ? true : undefined),
        60_000,
      );
      const lines = await eventually(async () => {
        const res = await request(survivor.url).get(`/webhooks/${webhookId}/deliveries`);
        const done = res.body.deliveries as { type: string; status: string }[];
        return done.length === 3 && done.every((l) => l.status === 'delivered') ? done : undefined;
      }, LEASE_MS + 30_000);
      assert.deepEqual(
        lines.map((l) => l.type),
        ['completed', 'started', 'created'],
      );

      const ids = rx.got.map((d) => String(d.headers['webhook-id']));
      assert.deepEqual(
        [...new Set(ids)],
        [`${reassignmentId}:created`, `${reassignmentId}:started`, `${reassignmentId}:completed`],
        `in order, after dedupe: ${ids.join(' ')}`,
      );
      assert.ok(ids.filter((i) => i.endsWith(':started')).length >= 1);
      assert.ok(
        rx.got.every((d) => signed(d, secret)),
        'every request signed',
      );
      assert.ok(
        rx.got.some((d) => d.headers['webhook-id'] === `${reassignmentId}:started` && d.status === 200),
        'started delivered by the survivor',
      );
    } finally {
      for (const release of hung) release();
      await rx.close();
    }
  });
});
