// The transport's write coalescing (src/kafka/transport.ts coalesceWrites): the requests written
// on one connection in one turn of the event loop leave in one write, and nothing waits longer
// than that turn.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Connection } from '@platformatic/kafka';
import { coalesceWrites } from '../../src/kafka/transport.js';

/** A connected client socket whose single writes and vectored writes are counted. */
async function countedSocket(t: { after(fn: () => void): void }) {
  const received: Buffer[] = [];
  const server = createServer((s) => s.on('data', (c: Buffer) => received.push(c)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = new Socket();
  socket.connect((server.address() as AddressInfo).port, '127.0.0.1');
  await once(socket, 'connect');
  t.after(() => {
    socket.destroy();
    server.close();
  });
  const calls = { write: 0, writev: 0 };
  const s = socket as unknown as { _write: (...a: unknown[]) => unknown; _writev: (...a: unknown[]) => unknown };
  const [write, writev] = [s._write.bind(socket), s._writev.bind(socket)];
  s._write = (...a) => (calls.write++, write(...a));
  s._writev = (...a) => (calls.writev++, writev(...a));
  const bytes = () => Buffer.concat(received).toString();
  return { socket, calls, bytes, conn: { socket } as unknown as Pick<Connection, 'socket'> };
}

test('two requests written in one turn leave in one vectored write, before the next turn', async (t) => {
  const { socket, calls, bytes, conn } = await countedSocket(t);
  coalesceWrites(conn);
  socket.write('first;');
  coalesceWrites(conn); // a second request of the same turn: corked once only
  socket.write('second;');
  assert.deepEqual(calls, { write: 0, writev: 0 }, 'held until the turn ends');
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(calls, { write: 0, writev: 1 });
  const deadline = Date.now() + 5000;
  while (bytes() !== 'first;second;' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(bytes(), 'first;second;');
  // The next turn starts uncorked again: a lone write goes out at once.
  socket.write('third;');
  assert.equal(calls.write, 1);
});

test('a destroyed socket is left alone', async (t) => {
  const { socket, conn } = await countedSocket(t);
  socket.destroy();
  coalesceWrites(conn);
  assert.equal(socket.writableCorked, 0);
});
