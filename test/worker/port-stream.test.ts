// HTTP/1.1 over PortStreams joined by a real MessageChannel (transferred buffers): the
// transport of the reassignment worker (src/worker/port-stream.ts).
import { strict as assert } from 'node:assert';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { test } from 'node:test';
import { PortStreams, WINDOW_BYTES } from '../../src/worker/port-stream.js';
import type { StreamMessage, StreamOpen } from '../../src/worker/protocol.js';

/** A client side and a server side (an http.Server fed by 'connection') over one channel. */
function bridge(server: Server): {
  open: () => ReturnType<PortStreams['create']>;
  close: () => void;
  serverStreams: PortStreams;
  /** Every server-side stream, in the order opened. */
  opened: ReturnType<PortStreams['create']>[];
} {
  const { port1, port2 } = new MessageChannel();
  const clientStreams = new PortStreams();
  const serverStreams = new PortStreams();
  const sendOn = (port: MessagePort) => (m: StreamMessage | StreamOpen, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer ?? []);
  const opened: ReturnType<PortStreams['create']>[] = [];
  port2.on('message', (m: StreamMessage | StreamOpen) => {
    if (m.t !== 'open') return serverStreams.receive(m);
    const stream = serverStreams.create(m.s, sendOn(port2), false);
    opened.push(stream);
    server.emit('connection', stream);
  });
  port1.on('message', (m: StreamMessage) => clientStreams.receive(m));
  let next = 1;
  return {
    open: () => {
      const s = next++;
      const stream = clientStreams.create(s, sendOn(port1), true);
      port1.postMessage({ t: 'open', s });
      return stream;
    },
    close: () => {
      port1.close();
      port2.close();
    },
    serverStreams,
    opened,
  };
}

function body(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => resolve(Buffer.concat(chunks)));
    res.on('error', reject);
  });
}

test('a request and a large body cross both ways, byte for byte, with status and headers', async () => {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got = Buffer.concat(chunks);
      res.writeHead(201, { 'content-type': 'application/octet-stream', 'x-seen': `${req.method} ${req.url} ${got.length}` });
      // Echoes the body reversed: a different answer that still depends on every byte.
      res.end(Buffer.from(got).reverse());
    });
  });
  const b = bridge(server);
  try {
    // Larger than the flow-control window, so the window has to open again on acks.
    const sent = Buffer.alloc(3 * WINDOW_BYTES + 12345);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 31 + 7) & 0xff;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          method: 'POST',
          path: '/x?y=1',
          headers: { 'content-length': String(sent.length), connection: 'close' },
          createConnection: () => b.open(),
        },
        resolve,
      );
      req.on('error', reject);
      req.end(sent);
    });
    assert.equal(res.statusCode, 201);
    assert.equal(res.headers['x-seen'], `POST /x?y=1 ${sent.length}`);
    const got = await body(res);
    assert.ok(got.equals(Buffer.from(sent).reverse()));
  } finally {
    b.close();
  }
});

test("each side counts the bytes it read and wrote, as a socket does (the worker's heap release goes by them)", async () => {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.end(Buffer.alloc(70_000, 1)));
  });
  const b = bridge(server);
  try {
    const sent = Buffer.alloc(50_000, 2);
    const client = b.open();
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(
        {
          method: 'PUT',
          path: '/',
          headers: { 'content-length': String(sent.length), connection: 'close' },
          createConnection: () => client,
        },
        resolve,
      );
      req.on('error', reject);
      req.end(sent);
    });
    assert.equal((await body(res)).length, 70_000);
    const serverSide = b.opened[0];
    if (!serverSide.closed) await new Promise((resolve) => serverSide.once('close', resolve));
    // The request's head and body one way, the answer's head and body the other.
    assert.ok(serverSide.bytesRead > sent.length && serverSide.bytesRead < sent.length + 1000, `read ${serverSide.bytesRead}`);
    assert.ok(serverSide.bytesWritten > 70_000 && serverSide.bytesWritten < 71_000, `written ${serverSide.bytesWritten}`);
    assert.equal(client.bytesWritten, serverSide.bytesRead);
    assert.equal(client.bytesRead, serverSide.bytesWritten);
  } finally {
    b.close();
  }
});

test('a client that goes away closes the server side of its stream (an event stream ends)', async () => {
  let serverClosed!: () => void;
  const closed = new Promise<void>((resolve) => (serverClosed = resolve));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: 1\n\n');
    res.on('close', () => serverClosed());
  });
  const b = bridge(server);
  try {
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ path: '/events', createConnection: () => b.open() }, resolve);
      req.on('error', reject);
      req.end();
    });
    const first = await new Promise<string>((resolve) => res.once('data', (c: Buffer) => resolve(c.toString())));
    assert.equal(first, 'data: 1\n\n');
    res.destroy();
    await closed;
    assert.equal(b.serverStreams.size, 0);
  } finally {
    b.close();
  }
});
