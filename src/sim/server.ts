// One simulated broker's TCP listener: Kafka's framing (INT32 size + request), request
// header v0-v2, response header v0-v1, and dispatch to the handler of the API key.
//
// As a Kafka broker does, it processes one request at a time per connection (so
// responses keep request order), closes the connection on a frame it cannot decode,
// an oversized frame, an unknown API key or an unsupported version (except
// ApiVersions, which answers UNSUPPORTED_VERSION in v0 so the client can downgrade),
// and never lets one connection's garbage reach another.
//
// Options beyond plaintext Kafka: `tls` serves the same protocol over TLS (Kafka's
// SSL / SASL_SSL listeners), and `delayMs` (set through Simulator.setBrokerDelay) makes
// the broker wait before handling each request: a slow broker, for timeout tests.
// `faults` (Simulator.faults, ./faults.ts) intercepts chosen requests: an error answer in the
// API's response shape, a delay, or a dropped connection. `turns` (./request-turns.ts) makes
// heavy requests of all the brokers take turns, so light ones are answered in between.
// `cutOff` (Simulator.cutOffClient) closes, unanswered, every connection of a client id whose
// process is meant to be dead (a chaos test's killed gateway instance), at its next request.
import net from 'node:net';
import tls from 'node:tls';
import { Reader, Writer, MalformedFrameError } from './protocol/buffers.js';
import { decode, encode, isFlexibleVersion, supports } from './protocol/codec.js';
import { RequestHeaderSchema, ResponseHeaderSchema, type RequestHeader } from './protocol/messages.generated.js';
import type { ApiHandler, ConnectionState, RequestContext, SimulatorRuntime } from './handlers/types.js';
import { errorResponse, type FaultInjector } from './faults.js';
import { HEAVY_FRAME_BYTES, type RequestTurns } from './request-turns.js';
import { sessionExpired } from './sasl/session.js';
import type { OutOfRangeRequest } from './options.js';

/** Kafka's socket.request.max.bytes default. */
export const MAX_FRAME_BYTES = 100 * 1024 * 1024;
const API_VERSIONS_KEY = 18;

export interface BrokerServerOptions {
  brokerId: number;
  host: string;
  port: number;
  runtime: SimulatorRuntime;
  handlers: ReadonlyMap<number, ApiHandler>;
  /** Serve TLS (key, cert; ca + requestCert for client certificates). */
  tls?: tls.TlsOptions;
  /** Faults on demand (./faults.ts), consulted for every request (by API key and version). */
  faults?: FaultInjector;
  /** Shared by the simulator's brokers: one heavy request at a time (./request-turns.ts). */
  turns?: RequestTurns;
  /** Client ids cut off (Simulator.cutOffClient): a request naming one closes its connection unanswered. */
  cutOff?: ReadonlySet<string>;
  /** Told of every request refused as outside the release's ranges (Simulator.outOfRange). */
  onOutOfRange?: (r: OutOfRangeRequest) => void;
}

export class BrokerServer {
  private server: net.Server | null = null;
  private sockets = new Set<net.Socket>();
  /** Each connection's state (its client id, once it sent a request): for dropClient. */
  private readonly states = new WeakMap<net.Socket, ConnectionState>();
  port: number;
  /** Fault injection: wait this long before handling each request. */
  delayMs = 0;

  constructor(private readonly opts: BrokerServerOptions) {
    this.port = opts.port;
  }

  get listening(): boolean {
    return this.server !== null;
  }

  async start(): Promise<void> {
    if (this.server) return;
    // With TLS, 'secureConnection' hands over the socket once the handshake is done; a
    // failed handshake (wrong CA, plaintext client) never reaches accept().
    const server = this.opts.tls
      ? tls.createServer(this.opts.tls, (socket) => this.accept(socket))
      : net.createServer((socket) => this.accept(socket));
    if (this.opts.tls) server.on('tlsClientError', () => {});
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, this.opts.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and drops every connection: the port refuses connections until start(). */
  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Closes every connection whose last request named `clientId`, at once and unanswered (requests
   * waiting on a delay are never handled). Returns how many were closed.
   */
  dropClient(clientId: string): number {
    let n = 0;
    for (const s of this.sockets) {
      const conn = this.states.get(s);
      if (conn?.clientId !== clientId) continue;
      conn.closed = true;
      s.destroy();
      n++;
    }
    return n;
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const conn: ConnectionState = {
      remote: `${socket.remoteAddress}:${socket.remotePort}`,
      authenticated: !this.opts.runtime.saslRequired,
      saslMechanism: null,
      user: null,
      closed: false,
      closeAfterResponse: false,
    };
    this.states.set(socket, conn);
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let queue: Promise<void> = Promise.resolve();

    const close = (): void => {
      conn.closed = true;
      socket.destroy();
    };
    socket.on('close', () => {
      conn.closed = true;
      this.sockets.delete(socket);
    });
    socket.on('error', () => close());
    socket.on('data', (chunk: Buffer) => {
      pending.push(chunk);
      pendingBytes += chunk.length;
      for (;;) {
        if (pendingBytes < 4) return;
        // The size alone first: joining every chunk of a large frame as it arrives would copy
        // it over and over (quadratic in its size); join once the whole frame is there.
        const head = pending[0].length >= 4 ? pending[0] : Buffer.concat(pending, pendingBytes);
        const size = head.readInt32BE(0);
        if (size < 8 || size > MAX_FRAME_BYTES) {
          // A header alone takes 8 bytes; anything else is not Kafka.
          close();
          return;
        }
        if (pendingBytes < 4 + size) return;
        let buf = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
        const frame = buf.subarray(4, 4 + size);
        buf = buf.subarray(4 + size);
        pending = buf.length ? [buf] : [];
        pendingBytes = buf.length;
        queue = queue.then(() => this.process(frame, conn, socket)).catch(() => close());
      }
    });
  }

  private async process(frame: Buffer, conn: ConnectionState, socket: net.Socket): Promise<void> {
    if (conn.closed) return;
    if (this.delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
      // Stopped (or the client gave up) while waiting: the request is never handled.
      if (conn.closed) return;
    }
    const r = new Reader(frame);
    const apiKey = r.int16();
    const apiVersion = r.int16();
    const handler = this.opts.handlers.get(apiKey);
    if (!handler || !this.opts.runtime.apiRanges.has(apiKey)) {
      // A key the release does not have (DescribeTopicPartitions before 3.8, say): Kafka fails the
      // header's parse or finds the API not enabled on the listener, and closes the connection.
      this.opts.onOutOfRange?.({
        brokerId: this.opts.brokerId,
        apiKey,
        api: handler?.name ?? null,
        version: apiVersion,
        clientId: null,
        accepted: null,
      });
      throw new MalformedFrameError(`API key ${apiKey} is not served by Kafka ${this.opts.runtime.release.version}`);
    }
    const flexible = isFlexibleVersion(handler.request, apiVersion);
    // Request header v2 for flexible versions, v1 otherwise (v0 only ever for
    // ControlledShutdown v0, which is not simulated).
    r.offset = 0;
    const header = decode<RequestHeader>(RequestHeaderSchema, flexible ? 2 : 1, r);
    conn.clientId = header.clientId ?? null;
    if (conn.clientId !== null && this.opts.cutOff?.has(conn.clientId)) {
      conn.closed = true;
      return void socket.destroy();
    }

    if (!this.inHandlerRange(handler, apiVersion)) {
      this.opts.onOutOfRange?.({
        brokerId: this.opts.brokerId,
        apiKey,
        api: handler.name,
        version: apiVersion,
        clientId: conn.clientId,
        accepted: this.opts.runtime.apiRanges.get(apiKey) ?? null,
      });
      // Kafka's SocketServer (Processor.processCompletedReceives): a request whose version the
      // broker does not enable ("Received request api key ... with version ... which is not
      // enabled") is an InvalidRequestException, and processChannelException closes the connection.
      if (apiKey !== API_VERSIONS_KEY) throw new MalformedFrameError(`unsupported ${handler.name} v${apiVersion}`);
      // KIP-511: answer in v0 with UNSUPPORTED_VERSION and our ranges.
      const body: unknown = handler.unsupportedVersionResponse!(this.opts.runtime);
      return this.send(socket, handler, 0, header.correlationId, body);
    }
    // KIP-368: a session past its expiry is closed at its next request (SocketServer), unless the
    // request is the SaslHandshake that re-authenticates it (../sasl/session.ts).
    if (sessionExpired(conn, apiKey, this.opts.runtime.clock.now())) {
      conn.closed = true;
      return void socket.destroy();
    }
    if (!conn.authenticated && !handler.allowedBeforeAuthentication) {
      throw new MalformedFrameError(`${handler.name} before SASL authentication`);
    }
    const fault = this.opts.faults?.take(this.opts.brokerId, apiKey, apiVersion, conn.clientId) ?? null;
    if (fault?.delayMs) {
      // Cut short when the connection goes (client gone, broker stopped): never handled then.
      await new Promise<void>((resolve) => {
        const onClose = (): void => (clearTimeout(timer), resolve());
        // The listener goes with the delay: a connection with many delayed requests keeps none.
        const timer = setTimeout(() => (socket.off('close', onClose), resolve()), fault.delayMs);
        socket.once('close', onClose);
      });
      if (conn.closed) return;
    }
    if (fault?.drop === 'before') return void socket.destroy();
    // A heavy request waits for its turn (request-turns.ts); a large frame before it is decoded.
    const turns = this.opts.turns;
    let turn = turns !== undefined && frame.length > HEAVY_FRAME_BYTES;
    if (turn) await turns!.acquire();
    try {
      const request = decode(handler.request, apiVersion, r);
      if (!turn && turns !== undefined && handler.heavy?.(request)) {
        turn = true;
        await turns.acquire();
      }
      if (conn.closed) return;
      let response: unknown;
      if (fault?.error) response = errorResponse(handler.request, handler.response, apiVersion, request, fault.error);
      else {
        const ctx: RequestContext = {
          brokerId: this.opts.brokerId,
          runtime: this.opts.runtime,
          conn,
          header,
          version: apiVersion,
          clientId: header.clientId ?? null,
        };
        response = await handler.handle(ctx, request);
        if (fault?.drop === 'after') return void socket.destroy();
        if (response === null) {
          // No response is due (Produce with acks=0); a handler that wants the connection closed
          // instead (an acks=0 produce that failed: KafkaApis closes it) says so as for answers.
          if (conn.closeAfterResponse) {
            conn.closed = true; // requests already read behind it are not handled
            socket.end();
          }
          return;
        }
      }
      // The answer is encoded and queued on the socket before the turn passes on (send's promise
      // waits for the bytes to leave: that wait is not the simulator's work).
      const sent = this.send(socket, handler, apiVersion, header.correlationId, response);
      if (turn) {
        turn = false;
        turns!.release();
      }
      await sent;
      if (conn.closeAfterResponse) socket.end();
    } finally {
      if (turn) turns!.release();
    }
  }

  private inHandlerRange(handler: ApiHandler, version: number): boolean {
    const range = this.opts.runtime.apiRanges.get(handler.apiKey);
    if (!range) return false;
    return version >= range[0] && version <= range[1] && supports(handler.request, version);
  }

  private send(socket: net.Socket, handler: ApiHandler, version: number, correlationId: number, body: unknown): Promise<void> {
    if (socket.destroyed) return Promise.resolve();
    const w = new Writer();
    w.int32(0); // size, patched below
    // ApiVersions responses always use header v0, whatever the version (KIP-511).
    const headerVersion = handler.request.apiKey !== API_VERSIONS_KEY && isFlexibleVersion(handler.response, version) ? 1 : 0;
    encode(ResponseHeaderSchema, headerVersion, { correlationId }, w);
    encode(handler.response, version, body, w);
    const out = w.toBuffer();
    out.writeInt32BE(out.length - 4, 0);
    return new Promise((resolve) => socket.write(out, () => resolve()));
  }
}
