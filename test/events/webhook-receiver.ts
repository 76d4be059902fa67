// A webhook receiver for tests: a loopback HTTP server that records every request and answers
// what the test says; and the signature check a receiver makes.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifySignature } from '../../src/events/webhook-message.js';

export interface Delivery {
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A loopback receiver: records every request; `answer(n)` is the status of the n-th (1-based). */
export async function startReceiver(
  answer: (n: number, d: Omit<Delivery, 'status'>) => number | Promise<number> = () => 200,
): Promise<{ url: string; got: Delivery[]; close(): Promise<void> }> {
  const got: Delivery[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const d = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      void Promise.resolve(answer(got.length + 1, d)).then((status) => {
        got.push({ ...d, status });
        res.writeHead(status).end();
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/kafka`,
    got,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

/** Whether a request carries a valid signature of its body with `secret`. */
export function signed(d: Omit<Delivery, 'status'>, secret: string): boolean {
  const h = (n: string) => String(d.headers[n] ?? '');
  return verifySignature(
    secret,
    { id: h('webhook-id'), timestamp: h('webhook-timestamp'), signature: h('webhook-signature') },
    d.body,
    Date.now(),
  );
}
