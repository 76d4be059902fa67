// The per-caller client pool's bookkeeping (LRU bound, leases, idle sweep). The clients are
// stand-ins that record their lifecycle: what is under test is when the pool creates and
// closes them; that the client ids reach Kafka is tested over TCP in
// test/http/quota/callers.integration.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CallerClients } from '../../src/kafka/caller-clients.js';
import type { KafkaGateway } from '../../src/kafka/types.js';

function recorder() {
  const created: string[] = [];
  const closed: string[] = [];
  const gates = new Map<string, () => void>();
  const create = (clientId: string): KafkaGateway => {
    created.push(clientId);
    const unsupported = async (): Promise<never> => {
      throw new Error('not used');
    };
    return {
      describeCluster: unsupported,
      describeTopic: unsupported,
      createTopics: unsupported,
      deleteTopics: unsupported,
      createPartitions: unsupported,
      ping: async () => undefined,
      // listTopics blocks until released, to hold a lease open.
      listTopics: () => new Promise((resolve) => gates.set(clientId, () => resolve([]))),
      close: async () => void closed.push(clientId),
    };
  };
  return { created, closed, gates, create };
}

describe('CallerClients', () => {
  it('reuses one client per client id and closes the least recently used beyond the bound', async () => {
    const r = recorder();
    const now = 0;
    const pool = new CallerClients(r.create, { maxClients: 2, idleMs: 60_000 }, () => now);
    await pool.view('a').ping();
    await pool.view('b').ping();
    await pool.view('a').ping(); // a is now the most recent
    assert.deepEqual(r.created, ['a', 'b']);
    await pool.view('c').ping();
    assert.deepEqual(r.closed, ['b']);
    assert.deepEqual(pool.openClientIds(), ['a', 'c']);
    await pool.close();
    assert.deepEqual(r.closed.sort(), ['a', 'b', 'c']);
  });

  it('never closes a client under a call: an evicted busy client closes when its call ends', async () => {
    const r = recorder();
    const pool = new CallerClients(r.create, { maxClients: 1, idleMs: 60_000 });
    const busy = pool.view('a').listTopics();
    await pool.view('b').ping(); // over the bound, but a is busy
    assert.equal(r.closed.length, 0);
    await pool.view('c').ping(); // b is idle: evicted
    assert.deepEqual(r.closed, ['b']);
    r.gates.get('a')!();
    await busy;
    await pool.view('d').ping(); // a idle now: evicted and closed
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(r.closed.includes('a'));
    await pool.close();
  });

  it('sweeps clients idle for idleMs', async () => {
    const r = recorder();
    let now = 0;
    const pool = new CallerClients(r.create, { maxClients: 10, idleMs: 1000 }, () => now);
    await pool.view('a').ping();
    now = 500;
    await pool.view('b').ping();
    now = 1000;
    pool.sweepIdle();
    assert.deepEqual(r.closed, ['a']);
    assert.deepEqual(pool.openClientIds(), ['b']);
    await pool.close();
  });
});
