// Listening and graceful shutdown. On SIGTERM/SIGINT: mark the app draining (so
// /readyz fails and load balancers stop routing), stop accepting connections, let
// in-flight requests finish, then close the Kafka client - in that order, because
// in-flight requests still need Kafka.
import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { HttpsConfig } from './auth/config.js';
import type { KafkaGateway } from '../kafka/types.js';
import type { Logger } from './logger.js';
import type { LifecycleState } from './routes/health.js';

export interface ServerOptions {
  app: Express;
  kafka: KafkaGateway;
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

export async function startServer(opts: ServerOptions): Promise<RunningServer> {
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
        opts.app,
      )
    : createServer(opts.app);
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // server.close() waits for keep-alive sockets too; idle ones can go now, busy
      // ones are closed by Node as soon as their response is done.
      server.closeIdleConnections();
      const timeoutMs = opts.shutdownTimeoutMs ?? 25_000;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        closed,
        new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            opts.logger.warn('shutdown timeout: closing remaining connections', { timeoutMs });
            server.closeAllConnections();
            resolve();
          }, timeoutMs);
          timer.unref();
        }),
      ]);
      clearTimeout(timer);
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
