// Heavy requests take turns (src/sim/request-turns.ts): one at a time, the next one only after
// the event loop polled the sockets again, so a light request is answered while heavy ones wait.
// Over the wire: a light request written right after six heavy ones comes back first, or after
// the one heavy request under way; without turns the server answered every heavy request it had
// read in one block first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { startSimulator } from '../../src/sim/index.js';
import { RequestTurns } from '../../src/sim/request-turns.js';
import { metadataHandler } from '../../src/sim/handlers/03_metadata.js';
import { listPartitionReassignmentsHandler } from '../../src/sim/handlers/46_list_partition_reassignments.js';
import { frame } from './wire.js';
import { BrokerServer } from '../../src/sim/server.js';
import type { ApiHandler } from '../../src/sim/handlers/types.js';

test('RequestTurns: one heavy request at a time, each started on an immediate (after a poll of the sockets)', async () => {
  const turns = new RequestTurns();
  const order: string[] = [];
  const microtasks = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const immediate = () => new Promise<void>((resolve) => setImmediate(resolve));
  const a = turns.acquire().then(() => order.push('a'));
  const b = turns.acquire().then(() => order.push('b'));
  const c = turns.acquire().then(() => order.push('c'));
  // Not in the callback that asked, nor in its microtasks: even the first waits for an immediate.
  await microtasks();
  assert.deepEqual(order, []);
  await a;
  await immediate();
  await immediate();
  assert.deepEqual(order, ['a'], 'b waits while a runs, however many turns pass');
  assert.equal(turns.waiting, 2);
  turns.release();
  await microtasks();
  assert.deepEqual(order, ['a'], 'released: b starts on a later immediate, not at once');
  await b;
  assert.deepEqual(order, ['a', 'b']);
  turns.release();
  await c;
  assert.deepEqual(order, ['a', 'b', 'c']);
  turns.release();
  assert.equal(turns.waiting, 0);
});

test('handlers call heavy what grows with the cluster, and not a request about a few partitions', () => {
  assert.equal(metadataHandler.heavy!({ topics: null }), true);
  assert.equal(metadataHandler.heavy!({ topics: [{ name: '__gateway_state' }] }), false);
  assert.equal(metadataHandler.heavy!({ topics: [] }), false, 'no topic: the brokers only');
  assert.equal(metadataHandler.heavy!({ topics: Array.from({ length: 11 }, (_, i) => ({ name: `t${i}` })) }), true);
  assert.equal(listPartitionReassignmentsHandler.heavy!({ topics: null } as never), true);
  assert.equal(listPartitionReassignmentsHandler.heavy!({ topics: [{ name: 't', partitionIndexes: [0, 1] }] } as never), false);
});

/** A connection that reads answers (one request at a time) and resolves each with its frame. */
async function connection(port: number) {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let buf = Buffer.alloc(0);
  let waiting: (() => void) | null = null;
  socket.on('data', (d: Buffer) => {
    buf = Buffer.concat([buf, d]);
    if (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
      buf = buf.subarray(4 + buf.readInt32BE(0));
      waiting?.();
    }
  });
  const send = (bytes: Buffer) => new Promise<void>((resolve) => ((waiting = resolve), socket.write(bytes)));
  return { socket, send };
}

/**
 * Six heavy requests (each 40 ms of work: a Metadata handler that first spins) and a light one
 * (a Metadata of no topic) written at once on connections of their own to one broker server, the
 * heavy ones taking turns when `turns` is given. Returns the order the server handled them in.
 */
async function handledOrder(turns: RequestTurns | undefined): Promise<string[]> {
  const sim = await startSimulator({ brokers: 1 });
  const handled: string[] = [];
  let spin = false;
  const spinning: ApiHandler = {
    ...metadataHandler,
    heavy: (req: { topics: unknown[] | null }) => req.topics === null,
    handle(ctx, req) {
      if (spin) handled.push(req.topics === null ? 'heavy' : 'light');
      if (req.topics === null) {
        const until = performance.now() + 40;
        while (performance.now() < until); // the work of a big answer, without its bytes
        return metadataHandler.handle(ctx, { ...req, topics: [] });
      }
      return metadataHandler.handle(ctx, req);
    },
  };
  const server = new BrokerServer({
    brokerId: 0,
    host: '127.0.0.1',
    port: 0,
    runtime: sim,
    handlers: new Map([[3, spinning]]),
    ...(turns && { turns }),
  });
  await server.start();
  const conns = await Promise.all(Array.from({ length: 7 }, () => connection(server.port)));
  try {
    const heavy = frame(3, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    const light = frame(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    // One round trip each first: every connection is accepted and read by the server.
    await Promise.all(conns.map((c) => c.send(light)));
    spin = true;
    await Promise.all(conns.map((c, i) => c.send(i < 6 ? heavy : light)));
    assert.equal(handled.length, 7, 'every request was answered');
    return handled;
  } finally {
    for (const c of conns) c.socket.destroy();
    await server.stop();
    await sim.close();
  }
}

test('a light request is answered while heavy ones wait for their turn; without turns it waited for all of them', async () => {
  const taking = await handledOrder(new RequestTurns());
  // Written right after them: answered before any, or after the one heavy request under way.
  assert.ok(taking.indexOf('light') <= 1, `with turns, the light request was handled first or second (order: ${taking.join(', ')})`);
  const blocking = await handledOrder(undefined);
  assert.ok(
    blocking.indexOf('light') >= 5,
    `without turns, the heavy requests read together were all handled first (order: ${blocking.join(', ')})`,
  );
});
