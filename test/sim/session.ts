// A raw Kafka connection for simulator tests that need more than one request on the same
// socket: a chosen client id, SASL PLAIN first, then any requests. Encoded and decoded with
// the simulator's codecs (like ./wire.ts, which opens a fresh connection per request).
import net from 'node:net';
import { Reader } from '../../src/sim/protocol/buffers.js';
import { decode, isFlexibleVersion } from '../../src/sim/protocol/codec.js';
import { ALL_SCHEMAS, ResponseHeaderSchema } from '../../src/sim/protocol/messages.generated.js';
import { frame } from './wire.js';

export class Session {
  private acc = Buffer.alloc(0);
  private waiting: ((b: Buffer) => void) | null = null;
  private correlationId = 0;

  private constructor(
    private readonly socket: net.Socket,
    readonly clientId: string | null,
  ) {
    socket.on('data', (d) => {
      this.acc = Buffer.concat([this.acc, d]);
      this.deliver();
    });
  }

  static async open(port: number, clientId: string | null, sasl?: { user: string; password: string }): Promise<Session> {
    const socket = net.connect(port, '127.0.0.1');
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const s = new Session(socket, clientId);
    if (sasl) {
      const hs = await s.send(17, 1, { mechanism: 'PLAIN' });
      if (hs.errorCode !== 0) throw new Error(`SaslHandshake failed: ${hs.errorCode}`);
      const auth = await s.send(36, 2, { authBytes: Buffer.from(`\u0000${sasl.user}\u0000${sasl.password}`) });
      if (auth.errorCode !== 0) throw new Error(`SaslAuthenticate failed: ${auth.errorCode} ${auth.errorMessage}`);
    }
    return s;
  }

  private deliver(): void {
    if (!this.waiting || this.acc.length < 4 || this.acc.length < 4 + this.acc.readInt32BE(0)) return;
    const size = this.acc.readInt32BE(0);
    const body = this.acc.subarray(4, 4 + size);
    this.acc = this.acc.subarray(4 + size);
    const w = this.waiting;
    this.waiting = null;
    w(body);
  }

  /** One request, answered before the next is sent. */
  async send<T = any>(apiKey: number, version: number, body: unknown): Promise<T> {
    const bytes = frame(apiKey, version, body, ++this.correlationId, this.clientId);
    const answer = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no answer')), 3000);
      this.waiting = (b) => {
        clearTimeout(timer);
        resolve(b);
      };
      this.socket.write(bytes);
      this.deliver();
    });
    const schema = ALL_SCHEMAS.find((x) => x.apiKey === apiKey && x.name.endsWith('Response'))!;
    const r = new Reader(answer);
    decode(ResponseHeaderSchema, apiKey !== 18 && isFlexibleVersion(schema, version) ? 1 : 0, r);
    return decode<T>(schema, version, r);
  }

  close(): void {
    this.socket.destroy();
  }
}
