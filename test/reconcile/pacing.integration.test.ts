// Paced execution (issue 9) against the simulator over TCP: the bounds hold at every moment
// (observed by polling Kafka from the test, not from the gateway's records), no partition is
// started twice, pause/resume/throttle changes steer a running reassignment, throttles are gone
// at the end; with two instances reconciling at once, and with an instance SIGKILLed right
// after sending a wave (before recording it) or right after that wave's throttles.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import request from 'supertest';
import type { PlatformaticKafkaGateway } from '../../src/kafka/admin.js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { FAST_KAFKA_ENV } from '../http/helpers.js';
import { createTopics, startReassignGateway, throttleConfigs } from '../http/reassignment-helpers.js';
import { eventually } from '../eventually.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Watches Kafka's moving partitions: peak moves per broker (destination or leader), and any partition that moves again after it stopped. */
function observe(kafka: PlatformaticKafkaGateway, leaders: Map<string, number>) {
  const peak = new Map<number, number>();
  const ended = new Set<string>();
  const restarted: string[] = [];
  let seen = new Set<string>();
  let polls = 0;
  let on = true;
  const loop = (async () => {
    while (on) {
      const moving = await kafka.listPartitionReassignments().catch(() => null);
      if (moving) {
        polls++;
        const now = new Set<string>();
        const load = new Map<number, number>();
        for (const m of moving) {
          const key = `${m.topic}:${m.partition}`;
          if (!leaders.has(key)) continue;
          now.add(key);
          if (ended.has(key)) restarted.push(key);
          for (const b of new Set([...m.adding, leaders.get(key)!])) load.set(b, (load.get(b) ?? 0) + 1);
        }
        for (const k of seen) if (!now.has(k)) ended.add(k);
        seen = now;
        for (const [b, n] of load) peak.set(b, Math.max(peak.get(b) ?? 0, n));
      }
      await new Promise((r) => setTimeout(r, 10));
    }
  })();
  return {
    peak,
    restarted,
    get polls() {
      return polls;
    },
    async stop() {
      on = false;
      await loop;
    },
  };
}

/** n partitions on brokers 0-3 (RF 2), each moving its second replica to a broker it does not have. */
function layout(n: number): {
  assignments: number[][];
  targets: (topic: string) => { topic: string; partition: number; replicas: number[] }[];
} {
  const assignments = Array.from({ length: n }, (_, p) => [p % 4, (p + 1) % 4]);
  return {
    assignments,
    targets: (topic) =>
      assignments.map(([a, b], partition) => ({
        topic,
        partition,
        replicas: [a, [0, 1, 2, 3].find((x) => x !== a && x !== b && x !== (b + 1) % 4) ?? (b + 2) % 4],
      })),
  };
}

async function leadersOf(kafka: PlatformaticKafkaGateway, topic: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const t of await kafka.describePartitions([topic])) for (const p of t.partitions) out.set(`${t.name}:${p.partition}`, p.leader);
  return out;
}

describe('paced execution', () => {
  it('perBroker 1: bounds hold, counts move from queued to completed, pause, resume, throttle change, throttles gone', async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 4 } });
    try {
      const { assignments, targets } = layout(8);
      await createTopics(gw, { name: 'paced', assignments });
      for (let p = 0; p < assignments.length; p++) gw.sim.seedBytes('paced', p, 40_000 + p * 5_000);
      const obs = observe(gw.kafka, await leadersOf(gw.kafka, 'paced'));
      try {
        const dry = await gw
          .http()
          .post('/reassignments')
          .send({ partitions: targets('paced'), throttle: 100_000, concurrency: { perBroker: 1 }, validateOnly: true });
        assert.equal(dry.status, 200, JSON.stringify(dry.body));
        assert.ok(dry.body.pacing.waveCount > 1, 'several waves');
        assert.equal(dry.body.pacing.waves.flatMap((w: { partitions: unknown[] }) => w.partitions).length, 8);
        assert.ok(dry.body.pacing.estimatedSeconds > 0);

        const res = await gw
          .http()
          .post('/reassignments')
          .send({ partitions: targets('paced'), throttle: 100_000, concurrency: { perBroker: 1 } });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        const id = res.body.id as string;
        const first = await gw.http().get(`/reassignments/${id}`);
        assert.equal(first.status, 200);
        assert.deepEqual(first.body.concurrency, { perBroker: 1, cluster: null });
        assert.equal(first.body.order, 'size-asc');
        assert.ok(first.body.counts.queued > 0, JSON.stringify(first.body.counts));
        assert.ok(first.body.counts.moving >= 1 && first.body.counts.moving <= 2, JSON.stringify(first.body.counts));

        // Pause: moves in flight finish, none start.
        const paused = await gw.http().patch(`/reassignments/${id}`).send({ paused: true });
        assert.equal(paused.status, 200, JSON.stringify(paused.body));
        assert.equal(paused.body.state, 'paused');
        const quiet = await eventually(async () => {
          const g = await gw.http().get(`/reassignments/${id}`);
          const moving = (await gw.kafka.listPartitionReassignments()).filter((m) => m.topic === 'paced');
          return g.body.counts.moving === 0 && moving.length === 0 ? g.body.counts : undefined;
        }, 30_000);
        assert.ok(quiet.queued > 0, 'something left in the queue');
        await gw.runtime.reconciler.reconcileOnce();
        await gw.runtime.reconciler.reconcileOnce();
        assert.deepEqual(
          (await gw.kafka.listPartitionReassignments()).filter((m) => m.topic === 'paced'),
          [],
          'nothing starts while paused',
        );
        assert.equal((await gw.http().get(`/reassignments/${id}`)).body.counts.queued, quiet.queued);

        // Resume with a higher throttle.
        const resumed = await gw.http().patch(`/reassignments/${id}`).send({ paused: false, throttle: 200_000 });
        assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
        assert.equal(resumed.body.state, 'running');
        assert.equal(resumed.body.throttle, 200_000);
        const done = await eventually(async () => {
          const g = await gw.http().get(`/reassignments/${id}`);
          return g.body.state === 'completed' ? g.body : undefined;
        }, 60_000);
        assert.deepEqual(done.counts, { total: 8, queued: 0, moving: 0, completed: 8, failed: 0, cancelled: 0 });
        const topic = await gw.http().get('/topics/paced');
        assert.deepEqual(
          topic.body.partitions.map((p: { replicas: number[] }) => p.replicas),
          targets('paced').map((t) => t.replicas),
        );
        await eventually(async () => (Object.keys(await throttleConfigs(gw.kafka)).length === 0 ? true : undefined), 20_000);
      } finally {
        await obs.stop();
      }
      assert.ok(obs.polls > 10);
      assert.ok(Math.max(...obs.peak.values()) === 1, `peak per broker ${JSON.stringify([...obs.peak])}`);
      assert.deepEqual(obs.restarted, [], 'no partition started twice');
    } finally {
      await gw.close();
    }
  });

  it("a move Kafka refuses is recorded failed with Kafka's error and the queue goes on; the final state counts it", async () => {
    const gw = await startReassignGateway({ simulator: { brokers: 4 } });
    try {
      await createTopics(
        gw,
        {
          name: 'ref-a',
          assignments: [
            [0, 1],
            [1, 2],
            [2, 3],
          ],
        },
        { name: 'ref-b', assignments: [[0, 1]] },
      );
      for (let p = 0; p < 3; p++) gw.sim.seedBytes('ref-a', p, 20_000);
      gw.sim.seedBytes('ref-b', 0, 200_000); // largest: last in size-asc order
      const res = await gw
        .http()
        .post('/reassignments')
        .send({
          partitions: [
            { topic: 'ref-b', partition: 0, replicas: [0, 2] },
            { topic: 'ref-a', partition: 0, replicas: [0, 2] },
            { topic: 'ref-a', partition: 1, replicas: [1, 3] },
            { topic: 'ref-a', partition: 2, replicas: [2, 0] },
          ],
          throttle: 100_000,
          concurrency: { cluster: 1 },
        });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const id = res.body.id as string;
      const paused = await gw.http().patch(`/reassignments/${id}`).send({ paused: true });
      assert.equal(paused.status, 200);
      const queuedRows = await gw.http().get(`/reassignments/${id}/partitions?state=queued`);
      assert.equal(queuedRows.status, 200, JSON.stringify(queuedRows.body));
      assert.ok(
        queuedRows.body.items.some((p: { topic: string }) => p.topic === 'ref-b'),
        'ref-b still queued',
      );
      // The queued partition's topic disappears: Kafka will refuse its move.
      const deleted = await gw.kafka.deleteTopics(['ref-b']);
      assert.ok(deleted[0].ok, JSON.stringify(deleted));
      assert.equal((await gw.http().patch(`/reassignments/${id}`).send({ paused: false })).status, 200);
      const done = await eventually(async () => {
        const g = await gw.http().get(`/reassignments/${id}`);
        return g.body.state === 'completed' || g.body.state === 'failed' ? g.body : undefined;
      }, 60_000);
      assert.equal(done.state, 'completed', JSON.stringify(done));
      assert.deepEqual(done.counts, { total: 4, queued: 0, moving: 0, completed: 3, failed: 1, cancelled: 0 });
      const failedRows = await gw.http().get(`/reassignments/${id}/partitions?state=failed`);
      assert.equal(failedRows.status, 200, JSON.stringify(failedRows.body));
      assert.equal(failedRows.body.items.length, 1);
      assert.equal(failedRows.body.items[0].topic, 'ref-b');
      assert.equal(failedRows.body.items[0].error.name, 'UNKNOWN_TOPIC_OR_PARTITION');
      await eventually(async () => (Object.keys(await throttleConfigs(gw.kafka)).length === 0 ? true : undefined), 20_000);
    } finally {
      await gw.close();
    }
  });

  it('DELETE cancels the moves in flight and drops the queue; nothing moves afterwards, throttles gone', async () => {
    const a = await startReassignGateway({ simulator: { brokers: 4 } });
    const b = await startReassignGateway({ sim: a.sim });
    try {
      const { assignments, targets } = layout(8);
      await createTopics(a, { name: 'paced-del', assignments });
      for (let p = 0; p < assignments.length; p++) a.sim.seedBytes('paced-del', p, 500_000);
      const res = await a
        .http()
        .post('/reassignments')
        .send({ partitions: targets('paced-del'), throttle: 50_000, concurrency: { perBroker: 1 } });
      assert.equal(res.status, 202, JSON.stringify(res.body));
      const id = res.body.id as string;
      // Instance b cancels while a (and b) reconcile.
      const del = await b.http().delete(`/reassignments/${id}`);
      assert.equal(del.status, 200, JSON.stringify(del.body));
      const g = await a.http().get(`/reassignments/${id}`);
      assert.equal(g.body.state, 'cancelled');
      assert.equal(g.body.counts.queued, 0);
      assert.equal(g.body.counts.moving, 0);
      assert.ok(g.body.counts.cancelled >= 6, JSON.stringify(g.body.counts));
      await a.runtime.reconciler.reconcileOnce();
      await b.runtime.reconciler.reconcileOnce();
      assert.deepEqual(
        (await a.kafka.listPartitionReassignments()).filter((m) => m.topic === 'paced-del'),
        [],
        'no wave after the cancel',
      );
      await eventually(async () => (Object.keys(await throttleConfigs(a.kafka)).length === 0 ? true : undefined), 20_000);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('two instances reconciling at once: bounds hold, no partition started twice', async () => {
    const a = await startReassignGateway({ simulator: { brokers: 4 } });
    const b = await startReassignGateway({ sim: a.sim });
    try {
      const { assignments, targets } = layout(10);
      await createTopics(a, { name: 'paced2', assignments });
      for (let p = 0; p < assignments.length; p++) a.sim.seedBytes('paced2', p, 30_000 + p * 3_000);
      const obs = observe(a.kafka, await leadersOf(a.kafka, 'paced2'));
      let id: string;
      try {
        const res = await a
          .http()
          .post('/reassignments')
          .send({ partitions: targets('paced2'), throttle: 150_000, concurrency: { perBroker: 1, cluster: 2 } });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        id = res.body.id;
        await eventually(async () => ((await b.http().get(`/reassignments/${id}`)).body.state === 'completed' ? true : undefined), 90_000);
        await eventually(async () => (Object.keys(await throttleConfigs(a.kafka)).length === 0 ? true : undefined), 20_000);
      } finally {
        await obs.stop();
      }
      assert.ok(Math.max(...obs.peak.values()) <= 1, `peak per broker ${JSON.stringify([...obs.peak])}`);
      assert.deepEqual(obs.restarted, [], 'no partition started twice');
      const record = b.runtime.store.view().reassignments.get(id)!;
      assert.ok(record.partitions.every((p) => p.state === 'completed' && p.startedAt !== undefined));
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('paced execution: an instance SIGKILLed in the middle of a wave', () => {
  let sim: Simulator;
  after(() => sim?.close());

  async function startChild(
    env: Record<string, string>,
  ): Promise<{ proc: ChildProcess; url: string; exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> }> {
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
        KAFKA_REQUEST_TIMEOUT_MS: '2000',
        PACING_LEASE_MS: '7000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(proc, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      proc.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const m = /Kafka admin gateway: (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      proc.stderr.on('data', (c: Buffer) => (out += c.toString()));
      void exited.then(({ code, signal }) => reject(new Error(`gateway exited (${code ?? signal}) before listening:\n${out}`)));
    });
    return { proc, url, exited };
  }

  for (const point of ['pacing-throttles', 'pacing-start'] as const) {
    it(`killed right after ${point}: another instance finishes, within the bounds, starting nothing twice`, async () => {
      sim ??= await startSimulator({ brokers: 4 });
      const topic = `paced-${point}`;
      const { assignments, targets } = layout(6);
      const observer = createKafkaGateway(parseKafkaConfig({ ...FAST_KAFKA_ENV, KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(',') }));
      const child = await startChild({ GATEWAY_CRASH_AFTER: point });
      let obs: ReturnType<typeof observe> | undefined;
      let id: string;
      try {
        const created = await request(child.url).post('/topics').send({ name: topic, assignments });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        for (let p = 0; p < assignments.length; p++) sim.seedBytes(topic, p, 20_000 + p * 2_000);
        obs = observe(observer, await leadersOf(observer, topic));
        const res = await request(child.url)
          .post('/reassignments')
          .send({ partitions: targets(topic), throttle: 200_000, concurrency: { perBroker: 1 } });
        assert.equal(res.status, 202, JSON.stringify(res.body));
        id = res.body.id;
        // Its reconciler starts the second wave and dies there.
        assert.deepEqual(await child.exited, { code: null, signal: 'SIGKILL' });
      } finally {
        child.proc.kill('SIGKILL');
      }
      const gw = await startReassignGateway({ sim });
      try {
        await eventually(async () => ((await gw.http().get(`/reassignments/${id}`)).body.state === 'completed' ? true : undefined), 90_000);
        await eventually(
          async () =>
            Object.keys(await throttleConfigs(gw.kafka)).filter((k) => k.includes(topic) || k.startsWith('broker')).length === 0
              ? true
              : undefined,
          20_000,
        );
        const topicNow = await gw.http().get(`/topics/${topic}`);
        assert.deepEqual(
          topicNow.body.partitions.map((p: { replicas: number[] }) => p.replicas),
          targets(topic).map((t) => t.replicas),
        );
      } finally {
        await obs?.stop();
        await gw.close();
        await observer.close().catch(() => undefined);
      }
      assert.ok(Math.max(...obs.peak.values()) <= 1, `peak per broker ${JSON.stringify([...obs.peak])}`);
      assert.deepEqual(obs.restarted, [], 'no partition started twice');
    });
  }
});
