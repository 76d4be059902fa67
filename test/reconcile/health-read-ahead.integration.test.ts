// The start's health read begins when a POST /reassignments arrives, before its body is read
// (routes/reassignments.ts reassignmentReadAhead, HealthInterlock.readAhead), when every start is
// paced (REASSIGNMENT_DEFAULT_PER_BROKER): at 100,000 partitions the body's parse and validation
// outlast the read, which then costs the POST nothing. Without a default concurrency a start may
// be unpaced (it reads only its own topics' health, with their placement): nothing is read ahead.
// Against the simulator over TCP: the POST's headers and 20 bytes of its body are sent, the
// simulator sees the Metadata read (a fault that only watches) or not, then the rest goes and the
// answer is the plan. Starts arriving while a read is under way share it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { AHEAD_MAX_AGE_MS, HealthInterlock } from '../../src/reconcile/health.js';
import type { KafkaAdmin } from '../../src/kafka/kafka-admin.js';
import type { ReplicaHealth } from '../../src/kafka/replica-health.js';
import { createTopics, startReassignGateway, type ReassignGateway } from '../http/reassignment-helpers.js';

const METADATA = 3;

describe('the start health read, ahead of the body', () => {
  let gw: ReassignGateway;
  before(async () => {
    gw = await startReassignGateway({ simulator: { brokers: 4 }, reconcile: false, env: { REASSIGNMENT_DEFAULT_PER_BROKER: '1' } });
    await createTopics(gw, {
      name: 'ahead',
      assignments: [
        [0, 1],
        [1, 2],
        [2, 3],
        [3, 0],
      ],
    });
  });
  after(async () => {
    await gw?.close();
  });

  it('goes out while the body is still arriving; the answer is the plan', async () => {
    const body = JSON.stringify({
      partitions: [{ topic: 'ahead', partition: 0, replicas: [0, 2] }],
      concurrency: { perBroker: 1 },
      validateOnly: true,
    });
    // A first POST: the state topic and the connections are set up, nothing else reads Metadata after it.
    const warm = await gw
      .http()
      .post('/reassignments')
      .send(JSON.parse(body) as object);
    assert.equal(warm.status, 200, JSON.stringify(warm.body));

    const server = gw.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const watch = gw.sim.faults.add({ apiKey: METADATA, delayMs: 1 });
    try {
      const metadataSeen = new Promise<void>((resolve) => {
        const off = gw.sim.faults.onApplied((e) => {
          if (e.fault.id !== watch.id) return;
          off();
          resolve();
        });
      });
      const req = httpRequest({
        host: '127.0.0.1',
        port: (server.address() as AddressInfo).port,
        method: 'POST',
        path: '/reassignments',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      });
      const answered = once(req, 'response') as Promise<[IncomingMessage]>;
      answered.catch(() => undefined); // awaited below unless the test fails before
      req.write(body.slice(0, 20));
      // The read, with 20 bytes of the body sent (a deadline, not a wait: it fails the test).
      let timer: NodeJS.Timeout | undefined;
      const seen = await Promise.race([
        metadataSeen.then(() => true),
        new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 10_000))),
      ]);
      clearTimeout(timer);
      assert.ok(seen, 'no Metadata read while the body was arriving');
      req.end(body.slice(20));
      const [res] = await answered;
      const chunks: Buffer[] = [];
      for await (const c of res) chunks.push(c as Buffer);
      const answer = JSON.parse(Buffer.concat(chunks).toString()) as { totals?: { partitions: number; moving: number } };
      assert.equal(res.statusCode, 200, JSON.stringify(answer));
      assert.deepEqual([answer.totals?.partitions, answer.totals?.moving], [1, 1]);
    } finally {
      gw.sim.faults.remove(watch.id);
      server.close();
    }
  });

  it('is begun only when every start is paced: without a default concurrency nothing is read ahead', async () => {
    const ahead = gw.runtime.reassignments.readAhead();
    assert.ok(ahead.health, 'REASSIGNMENT_DEFAULT_PER_BROKER set: the read of every topic goes ahead');
    await ahead.health.read;
    const plain = await startReassignGateway({ sim: gw.sim, reconcile: false });
    try {
      assert.deepEqual(plain.runtime.reassignments.readAhead(), { health: null });
    } finally {
      await plain.close();
    }
  });
});

describe('HealthInterlock.readAhead', () => {
  /** A Kafka layer whose health reads answer when the test says. */
  function kafkaWithHeldReads() {
    const reads: { resolve: (h: ReplicaHealth) => void; listing: unknown }[] = [];
    const kafka = {
      describeReplicaHealth(_topics: unknown, listing: unknown) {
        return new Promise<ReplicaHealth>((resolve) => reads.push({ resolve, listing }));
      },
    } as unknown as KafkaAdmin;
    return { kafka, reads };
  }
  const healthy: ReplicaHealth = { brokers: [0], topics: [], partitions: 0, goneUnlisted: [] };
  let now = 0;
  const interlock = (kafka: KafkaAdmin) => new HealthInterlock({ kafka, store: {} as never, config: {} as never, now: () => now });

  it('starts arriving while a read is under way share it; the next start after it makes its own', async () => {
    const { kafka, reads } = kafkaWithHeldReads();
    const h = interlock(kafka);
    const a = h.readAhead();
    const b = h.readAhead();
    assert.equal(a, b);
    assert.equal(reads.length, 1);
    assert.deepEqual(reads[0].listing, { onlyTroubled: true }, 'compact: only the partitions with something to look at');
    reads[0].resolve(healthy);
    assert.equal(await a?.read, healthy);
    const c = h.readAhead();
    assert.notEqual(c, a);
    assert.equal(reads.length, 2);
  });

  it('a start with safety "off" uses no read; otherwise the read begun ahead while recent, or one begun now', () => {
    const { kafka, reads } = kafkaWithHeldReads();
    const h = interlock(kafka);
    now = 1_000;
    const ahead = { read: Promise.resolve(healthy), startedAt: now };
    assert.equal(h.prefetchAtStart('off', ahead), null);
    now += AHEAD_MAX_AGE_MS;
    assert.equal(h.prefetchAtStart(undefined, ahead), ahead.read);
    assert.equal(reads.length, 0);
    now += 1; // the body took longer to arrive: the reading is too old to judge the start by
    const fresh = h.prefetchAtStart(undefined, ahead);
    assert.ok(fresh && fresh !== ahead.read);
    assert.equal(reads.length, 1);
    assert.ok(h.prefetchAtStart(null));
    assert.equal(reads.length, 1, 'shares the read under way');
  });
});
