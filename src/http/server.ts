// Listening and graceful shutdown. On SIGTERM/SIGINT, the drain:
//   - /readyz answers 503 `shutting-down` (the listener stays open, so load balancers and
//     probes get an answer, not a refused connection) and /healthz still 200;
//   - any other NEW request is answered 503 `shutting-down` with Retry-After and
//     `Connection: close`: a client retries on another instance;
//   - requests in flight finish normally;
//   - when none is left, or SHUTDOWN_TIMEOUT_MS has passed, the listener closes. A request
//     still running at that point gets 503 `shutting-down` with Retry-After (whatever it
//     was doing may or may not have happened: as for any 503 of a mutation, check before
//     retrying); then connections are closed and the Kafka client after them, because
//     in-flight requests still need Kafka.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { HttpsConfig } from './auth/config.js';
import type { Logger } from '../observability/logger.js';
import type { LifecycleState } from './routes/health.js';

export interface ServerOptions {
  app: Express;
  /** The Kafka client, closed after the connections (in-flight requests still need it). */
  kafka: { close(): Promise<void> };
  state: LifecycleState;
  logger: Logger;
  port: number;
  host?: string;
  /** After this, remaining connections are cut so shutdown always completes (k8s gives 30 s by default). */
  shutdownTimeoutMs?: number;
  /** Install SIGTERM/SIGINT handlers (main: yes; tests: no). */
  handleSignals?: boolean;
  /** Runs last, after Kafka is closed (main: stop the embedded simulator). */
  onStopped?: () => Promise<void>;
  /** Serve HTTPS instead of HTTP; with clientCa, ask for client certificates (mTLS). */
  https?: HttpsConfig | null;
}

export interface RunningServer {
  readonly server: Server;
  readonly url: string;
  /** Idempotent; resolves when connections are gone and Kafka is closed. */
  shutdown(reason?: string): Promise<void>;
}

const DRAIN_RETRY_AFTER_SECONDS = 1;

function sendShuttingDown(res: ServerResponse, detail: string): void {
  const body = JSON.stringify({
    type: 'https://kafka-admin-gateway.dev/problems/shutting-down',
    title: 'Shutting down',
    status: 503,
    detail,
    instance: (res.req?.url ?? '/').split('?')[0],
  });
  res.writeHead(503, {
    'content-type': 'application/problem+json; charset=utf-8',
    'retry-after': String(DRAIN_RETRY_AFTER_SECONDS),
    connection: 'close',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
  // Requests being answered now (the drain waits for them; the timeout answers them 503).
  const active = new Set<ServerResponse>();
  let drainSettled: (() => void) | undefined;
  // Built once per server, not per request (issue 32): 'close' comes once per response.
  function forget(this: ServerResponse): void {
    active.delete(this);
    if (active.size === 0) drainSettled?.();
  }
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    if (opts.state.draining) {
      const path = (req.url ?? '/').split('?')[0];
      if (path !== '/readyz' && path !== '/healthz')
        return sendShuttingDown(res, 'The gateway is shutting down; send the request again (another instance will answer it).');
      res.setHeader('connection', 'close');
    }
    active.add(res);
    res.on('close', forget);
    opts.app(req, res);
  };
  const server: Server = opts.https
    ? createHttpsServer(
        {
          cert: opts.https.cert,
          key: opts.https.key,
          // mTLS: ask for a certificate and verify it against the client CA, but do not
          // fail the handshake without one: the caller may use a bearer token instead,
          // and gets a 401 problem rather than a TLS alert. Only socket.authorized
          // certificates count (src/http/auth/client-cert.ts).
          ...(opts.https.clientCa && { ca: opts.https.clientCa, requestCert: true, rejectUnauthorized: false }),
        },
        handler,
      )
    : createServer(handler);
  // Keep-alive sockets idle longer than a typical LB's (60 s) idle timeout would race the LB.
  server.keepAliveTimeout = 65_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const url = `${opts.https ? 'https' : 'http'}://${host === '0.0.0.0' || host === '[::]' ? 'localhost' : host}:${addr.port}`;

  let shutdownPromise: Promise<void> | undefined;
  const shutdown = (reason = 'shutdown'): Promise<void> => {
    shutdownPromise ??= (async () => {
      opts.logger.info('shutting down', { reason });
      opts.state.draining = true;
      // Idle keep-alive sockets can go now; busy ones are closed after their answer (Connection: close).
      server.closeIdleConnections();
      const timeoutMs = opts.shutdownTimeoutMs ?? 25_000;
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        active.size === 0 ? Promise.resolve(true) : new Promise<boolean>((resolve) => (drainSettled = () => resolve(true))),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      if (!finished) {
        opts.logger.warn('shutdown timeout: answering the requests still running with 503', { timeoutMs, requests: active.size });
        const answered = [...active].map(
          (res) =>
            new Promise<void>((resolve) => {
              if (res.headersSent) return void res.destroy(); // half an answer: the client sees the connection end
              res.once('finish', () => resolve());
              res.once('close', () => resolve());
              sendShuttingDown(
                res,
                `The gateway shut down before this request finished (SHUTDOWN_TIMEOUT_MS=${timeoutMs}); it may or may not have taken effect: check before retrying.`,
              );
            }),
        );
        await Promise.all(answered);
      }
      server.closeAllConnections();
      await closed;
      await opts.kafka.close();
      await opts.onStopped?.();
      opts.logger.info('stopped');
    })();
    return shutdownPromise;
  };

  if (opts.handleSignals) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        shutdown(signal).then(
          () => process.exit(0),
          (err: unknown) => {
            opts.logger.error('shutdown failed', { err: String(err) });
            process.exit(1);
          },
        );
      });
    }
  }

  return { server, url, shutdown };
}
