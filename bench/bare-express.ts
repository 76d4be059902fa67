// bench:overhead's baseline: a bare express 5 app in a process of its own that answers each
// measured route with the same status, content type and body as the gateway did (the body
// re-serialised per request for JSON, as the gateway's handlers do): what express and the JSON
// answer cost, without validation, access control, metrics, logging or Kafka.
// Started by bench/overhead.ts with an IPC channel: it sends
//   { routes: [{ path (express syntax), status, contentType, body }] }
// and gets back { port }.
import express from 'express';
import type { AddressInfo } from 'node:net';

interface BareRoute {
  path: string;
  status: number;
  contentType: string;
  body: string;
}

process.once('message', (msg: { routes: BareRoute[] }) => {
  const app = express();
  app.disable('x-powered-by');
  for (const r of msg.routes) {
    if (r.contentType.startsWith('application/json') || r.contentType.startsWith('application/problem+json')) {
      const value = JSON.parse(r.body) as unknown;
      app.get(r.path, (_req, res) => {
        res.status(r.status).type(r.contentType).send(JSON.stringify(value));
      });
    } else {
      app.get(r.path, (_req, res) => {
        res.status(r.status).type(r.contentType).send(r.body);
      });
    }
  }
  const server = app.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.once('disconnect', () => server.close());
});
