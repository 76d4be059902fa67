// A gateway killed with SIGKILL at each step of POST /reassignments leaves nothing behind:
// another instance (here: a restarted one) converges from the state topic alone. The gateway
// under test runs as a child process (`node --import tsx src/main.ts`) against a simulator in
// this process; the test-only hook GATEWAY_CRASH_AFTER makes it SIGKILL itself right after
// the ledger write, the throttle write, or the reassignment start. Also: two instances at once.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { FAST_KAFKA_ENV } from '../http/helpers.js';
import { startReassignGateway, throttleConfigs, type ReassignGateway } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = '1000';

let sim: Simulator;
before(async () => {
  sim = await startSimulator({ brokers: 4, replicationBytesPerSecond: 400_000 });
});
after(() => sim?.close());

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `src/main.ts` against the simulator; resolves once it listens. */
async function startChild(env: Record<string, string>): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      ...FAST_KAFKA_ENV,
      KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
      GATEWAY_AUTH: 'none',
      PORT: '0',
      HOST: '127.0.0.1',
      RECONCILE_INTERVAL_MS: '100',
      REASSIGNMENT_START_TIMEOUT_MS: START_TIMEOUT_MS,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = once(proc, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /Kafka admin gateway: (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
    void exited.then(({ code, signal }) => reject(new Error(`gateway exited (${code ?? signal}) before listening:\n${out}`)));
  });
  return { proc, url, exited };
}

async function createTopic(url: string, name: string, assignments: number[][], bytes: number): Promise<void> {
  const res = await request(url).post('/topics').send({ name, assignments });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  for (let p = 0; p < assignments.length; p++) sim.seedBytes(name, p, bytes);
}

describe('SIGKILL at every step of POST /reassignments, then a restart', () => {
  // Shared by the three cases: a gateway instance started after the crash.
  let restarted: ReassignGateway | undefined;
  after(() => restarted?.close());

  it('killed between the chunks and the header of its record: no instance ever sees the reassignment, nothing changed, the chunks are swept', async () => {
    const child = await startChild({ GATEWAY_CRASH_AFTER: 'reassignment-chunks' });
    try {
      await createTopic(child.url, 'crash-chunks', [[0, 1]], 200_000);
      const res = await request(child.url)
        .post('/reassignments')
        .send({ partitions: [{ topic: 'crash-chunks', partition: 0, replicas: [2, 3] }], throttle: 100_000 })
        .then(
          (answer) => assert.fail(`the gateway must die before answering, it answered ${answer.status} ${JSON.stringify(answer.body)}`),
          (err: Error) => err,
        );
      assert.match(String(res), /socket hang up|ECONNRESET/);
      assert.deepEqual(await child.exited, { code: null, signal: 'SIGKILL' });
    } finally {
      child.proc.kill('SIGKILL');
    }
    const gw = await startReassignGateway({ sim, env: { REASSIGNMENT_START_TIMEOUT_MS: START_TIMEOUT_MS } });
    try {
      const store = gw.runtime.store;
      await store.refresh();
      const orphans = store.chunkKeys();
      assert.ok(orphans.length > 0, 'the dead gateway wrote its chunk');
      assert.deepEqual(
        [...store.view().reassignments.values()].filter((r) => r.partitions.some((p) => p.topic === 'crash-chunks')),
        [],
        'no half-written reassignment is visible',
      );
      const left = await gw.http().get('/reassignments');
      assert.equal(left.status, 200);
      assert.deepEqual(left.body.reassignments, []);
      assert.deepEqual(await gw.kafka.listPartitionReassignments(), []);
      assert.deepEqual(
        Object.keys(await throttleConfigs(gw.kafka)).filter((k) => k.includes('crash-chunks')),
        [],
      );
      assert.deepEqual((await gw.http().get('/topics/crash-chunks')).body.partitions[0].replicas, [0, 1]);
      // Past the grace period, any instance tombstones chunks that no header names.
      assert.equal(await store.sweepOrphanChunks(Date.now() + 10 * 60_000), orphans.length);
      assert.deepEqual(store.chunkKeys(), []);
    } finally {
      await gw.close();
    }
  });

  const cases = [
    { point: 'ledger-write', topic: 'crash-ledger', expect: 'failed', moved: false },
    { point: 'throttle-write', topic: 'crash-throttle', expect: 'failed', moved: false },
    { point: 'reassignment-start', topic: 'crash-start', expect: 'completed', moved: true },
  ] as const;

  for (const c of cases) {
    it(`killed right after the ${c.point}: the restarted gateway ends it ${c.expect} and removes every throttle`, async () => {
      // The previous case's instance must not run meanwhile: its throttle sync would hold the
      // claims on the resources and do the writes itself, so the crash hook under test (which
      // fires in the instance that writes) would never fire in the child.
      await restarted?.close();
      restarted = undefined;
      const child = await startChild({ GATEWAY_CRASH_AFTER: c.point });
      try {
        await createTopic(child.url, c.topic, [[0, 1]], 200_000);
        const res = await request(child.url)
          .post('/reassignments')
          .send({ partitions: [{ topic: c.topic, partition: 0, replicas: [2, 3] }], throttle: 100_000 })
          .then(
            (answer) => assert.fail(`the gateway must die before answering, it answered ${answer.status} ${JSON.stringify(answer.body)}`),
            (err: Error) => err,
          );
        assert.match(String(res), /socket hang up|ECONNRESET/);
        assert.deepEqual(await child.exited, { code: null, signal: 'SIGKILL' });
      } finally {
        child.proc.kill('SIGKILL');
      }

      restarted = await startReassignGateway({ sim, env: { REASSIGNMENT_START_TIMEOUT_MS: START_TIMEOUT_MS } });
      const gw = restarted;
      // What the dead gateway left: a pending record (and, after the throttle write, throttles).
      const left = await gw.http().get('/reassignments');
      // Live records are listed first: the dead gateway's is the only live one.
      const rec = left.body.reassignments[0];
      // Still unresolved, or already resolved by the new instance's first pass (it may run first).
      assert.ok(['pending', 'running', c.expect].includes(rec?.state), JSON.stringify(left.body));
      assert.ok(rec, 'the record was written before anything changed');
      if (c.point !== 'ledger-write') {
        const t = await throttleConfigs(gw.kafka);
        assert.equal(
          t[`topic:${c.topic}`]?.['follower.replication.throttled.replicas'],
          '0:2,0:3',
          'the throttle was set before the crash',
        );
      }

      const id: string = rec.id;
      const end = await eventually(async () => {
        const g = await gw.http().get(`/reassignments/${id}`);
        return g.body.state === c.expect ? g.body : undefined;
      }, 20_000);
      assert.ok(end.reason || c.expect === 'completed', JSON.stringify(end));
      await eventually(async () => {
        const t = await throttleConfigs(gw.kafka);
        assert.deepEqual(
          Object.keys(t).filter((k) => k !== 'topic:_kafka_admin_gateway_state'),
          [],
        );
        return true;
      }, 10_000);
      assert.deepEqual(await gw.kafka.listPartitionReassignments(), []);
      const topic = await gw.http().get(`/topics/${c.topic}`);
      assert.deepEqual(topic.body.partitions[0].replicas, c.moved ? [2, 3] : [0, 1]);
      // The ledger is empty again: nothing is owned that is not there.
      await gw.runtime.store.refresh();
      await eventually(async () => (gw.runtime.store.view().ledger.size === 0 ? true : undefined));
    });
  }
});

describe('two gateway instances at once', () => {
  it('either instance reads and steers the reassignment; both reconcile without conflict', async () => {
    const a = await startReassignGateway({ sim, env: { GATEWAY_INSTANCE_ID: 'a' } });
    const b = await startReassignGateway({ sim, env: { GATEWAY_INSTANCE_ID: 'b' } });
    try {
      const created = await a
        .http()
        .post('/topics')
        .send({
          name: 'two',
          assignments: [
            [0, 1],
            [1, 0],
          ],
        });
      assert.equal(created.status, 201);
      // Long enough (~6 s at 100 kB/s) that the PATCH below always finds it running, even on a loaded machine.
      sim.seedBytes('two', 0, 600_000);
      sim.seedBytes('two', 1, 600_000);
      const res = await a
        .http()
        .post('/reassignments')
        .send({
          partitions: [
            { topic: 'two', partition: 0, replicas: [2, 1] },
            { topic: 'two', partition: 1, replicas: [3, 0] },
          ],
          throttle: 100_000,
        });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const viaB = await b.http().get(`/reassignments/${res.body.id}`);
      assert.equal(viaB.status, 200);
      assert.equal(viaB.body.owner, 'a');
      assert.equal(viaB.body.state, 'running');
      const patched = await b.http().patch(`/reassignments/${res.body.id}`).send({ throttle: 200_000 });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      for (const gw of [a, b]) {
        await eventually(
          async () => ((await gw.http().get(`/reassignments/${res.body.id}`)).body.state === 'completed' ? true : undefined),
          30_000,
        );
      }
      await eventually(async () => {
        assert.deepEqual(
          Object.keys(await throttleConfigs(a.kafka)).filter((k) => !k.includes('_kafka_admin_gateway_state')),
          [],
        );
        return true;
      });
      for (const gw of [a, b]) {
        const metrics = (await gw.http().get('/metrics')).text;
        // No step failed for any reason but a Kafka request that timed out or lost its connection
        // (which a loaded test machine can cause); a conflict between the instances would show as
        // a failed step with no such Kafka error.
        const sum = (re: RegExp) => [...metrics.matchAll(re)].reduce((n, m) => n + Number(m[1]), 0);
        const stepErrors = sum(/^kafka_gateway_reconciler_errors_total\{[^}]*\} (\d+)/gm);
        const transient = sum(/^kafka_gateway_kafka_requests_total\{[^}]*error="(?:REQUEST_TIMED_OUT|NETWORK_EXCEPTION)"[^}]*\} (\d+)/gm);
        assert.ok(stepErrors <= transient, `reconcile steps failed without a transient Kafka error: ${stepErrors} > ${transient}`);
        assert.match(metrics, /kafka_gateway_reconciler_runs_total [1-9]/);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });
});
