// One byte stream over a worker port: a Duplex whose writes become transferred Uint8Arrays
// and whose reads are the other side's. HTTP/1.1 rides on it (the worker's http.Server reads
// the request from it; the HTTP thread's http.request reads the answer), so statuses, headers,
// bodies and event streams cross the thread boundary exactly as the worker's app wrote them.
//
// Flow control: a sender has at most WINDOW_BYTES on the way that the receiver has not yet
// consumed (it acknowledges what its reader took); past that its writes wait. A client that
// does not read an event stream thus backs up into the worker's response, where the stream hub
// sees it (res.writableLength), as it would on a socket.
import { Duplex } from 'node:stream';
import type { PeerCertificate, StreamMessage } from './protocol.js';

export const WINDOW_BYTES = 1 << 20;

export type StreamSend = (message: StreamMessage, transfer?: ArrayBuffer[]) => void;

export interface PortStreamOptions {
  /** When the other side destroys the stream: an error on this side (a client must see it) or a quiet close. */
  errorOnRemoteDestroy: boolean;
  /** Called once when the stream is gone (the registry forgets it). */
  onGone: () => void;
  /** As the HTTP thread's socket had them (the worker's side). */
  remoteAddress?: string | undefined;
  peerCertificate?: PeerCertificate | undefined;
}

export class PortStream extends Duplex {
  readonly #send: StreamSend;
  readonly #opts: PortStreamOptions;
  #unacked = 0;
  #waiting: (() => void) | null = null;
  /** Bytes received and not acknowledged yet (the reader was full). */
  #owed = 0;
  #destroyedByRemote = false;
  // What http's server and the routes read or call on a net.Socket.
  readonly remoteAddress: string;
  readonly remotePort = 0;
  /** True only for a client certificate the HTTP thread's TLS server verified. */
  readonly authorized: boolean;
  /** Bytes received from the other side and sent to it so far (as a net.Socket counts them). */
  bytesRead = 0;
  bytesWritten = 0;

  constructor(
    readonly id: number,
    send: StreamSend,
    opts: PortStreamOptions,
  ) {
    super({ allowHalfOpen: true });
    this.#send = send;
    this.#opts = opts;
    this.remoteAddress = opts.remoteAddress ?? '127.0.0.1';
    this.authorized = opts.peerCertificate !== undefined;
  }

  /** The verified client certificate's identity fields ({} without one), as a TLSSocket answers. */
  getPeerCertificate(): PeerCertificate {
    return this.#opts.peerCertificate ?? {};
  }

  setTimeout(): this {
    return this;
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.#post([chunk], callback);
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    this.#post(
      chunks.map((c) => c.chunk),
      callback,
    );
  }

  #post(chunks: Buffer[], callback: (error?: Error | null) => void): void {
    let length = 0;
    for (const c of chunks) length += c.byteLength;
    // A fresh buffer of our own: a Buffer may be a slice of Node's shared pool, which must never be transferred.
    const bytes = new Uint8Array(length);
    let offset = 0;
    for (const c of chunks) {
      bytes.set(c, offset);
      offset += c.byteLength;
    }
    this.#send({ t: 'data', s: this.id, b: bytes }, [bytes.buffer]);
    this.bytesWritten += length;
    this.#unacked += length;
    if (this.#unacked <= WINDOW_BYTES) callback();
    else this.#waiting = () => callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.#send({ t: 'end', s: this.id });
    callback();
  }

  override _read(): void {
    if (this.#owed > 0) {
      this.#send({ t: 'ack', s: this.id, n: this.#owed });
      this.#owed = 0;
    }
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.#destroyedByRemote) this.#send({ t: 'destroy', s: this.id, ...(error && { reason: error.message }) });
    // A write waiting for the window ends with the stream.
    this.#waiting = null;
    this.#opts.onGone();
    callback(error);
  }

  /** A message of this stream from the other side. */
  receive(message: StreamMessage): void {
    switch (message.t) {
      case 'data': {
        const b = message.b;
        this.bytesRead += b.byteLength;
        if (this.push(Buffer.from(b.buffer, b.byteOffset, b.byteLength))) this.#send({ t: 'ack', s: this.id, n: b.byteLength });
        else this.#owed += b.byteLength;
        return;
      }
      case 'ack': {
        this.#unacked -= message.n;
        if (this.#waiting && this.#unacked <= WINDOW_BYTES) {
          const resume = this.#waiting;
          this.#waiting = null;
          resume();
        }
        return;
      }
      case 'end':
        this.push(null);
        return;
      case 'destroy':
        this.#destroyedByRemote = true;
        this.destroy(this.#opts.errorOnRemoteDestroy ? new Error(message.reason ?? 'the other side closed the stream') : undefined);
        return;
    }
  }
}

/** The open streams of one port, by id. */
export class PortStreams {
  readonly #streams = new Map<number, PortStream>();

  get size(): number {
    return this.#streams.size;
  }

  create(
    id: number,
    send: StreamSend,
    errorOnRemoteDestroy: boolean,
    peer: Pick<PortStreamOptions, 'remoteAddress' | 'peerCertificate'> = {},
  ): PortStream {
    const stream = new PortStream(id, send, { errorOnRemoteDestroy, onGone: () => this.#streams.delete(id), ...peer });
    this.#streams.set(id, stream);
    return stream;
  }

  /** Routes a message to its stream; one for a stream already gone is dropped. */
  receive(message: StreamMessage): void {
    this.#streams.get(message.s)?.receive(message);
  }

  /** Every stream ends with `error` (the worker is gone). */
  destroyAll(error: Error): void {
    for (const s of [...this.#streams.values()]) s.destroy(error);
    this.#streams.clear();
  }
}
