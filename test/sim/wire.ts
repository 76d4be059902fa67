// A minimal raw Kafka client for simulator tests: one request on a fresh connection,
// encoded and decoded with the simulator's codecs. Used where a test needs exact
// control of the bytes (versions, malformed frames); behaviour that a real client
// sees is tested with @platformatic/kafka, kcat and kafka-python instead.
import net from 'node:net';
import { Reader, Writer } from '../../src/sim/protocol/buffers.js';
import { decode, encode, isFlexibleVersion } from '../../src/sim/protocol/codec.js';
import { ALL_SCHEMAS, RequestHeaderSchema, ResponseHeaderSchema } from '../../src/sim/protocol/messages.generated.js';
import type { MessageSchema } from '../../src/sim/protocol/schema.js';

function schemaFor(apiKey: number, kind: 'Request' | 'Response'): MessageSchema {
  const s = ALL_SCHEMAS.find((x) => x.apiKey === apiKey && x.name.endsWith(kind));
  if (!s) throw new Error(`no schema for ${apiKey}`);
  return s;
}

export function frame(apiKey: number, version: number, body: unknown, correlationId = 1, clientId: string | null = 'wire-test'): Buffer {
  const req = schemaFor(apiKey, 'Request');
  const w = new Writer().int32(0);
  encode(
    RequestHeaderSchema,
    isFlexibleVersion(req, version) ? 2 : 1,
    { requestApiKey: apiKey, requestApiVersion: version, correlationId, clientId },
    w,
  );
  encode(req, version, body, w);
  const out = w.toBuffer();
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

/** Sends raw bytes and resolves with the first complete response frame, or 'closed'. */
export function exchange(port: number, bytes: Buffer, timeoutMs = 3000): Promise<Buffer | 'closed'> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let acc = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer'));
    }, timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (d) => {
      acc = Buffer.concat([acc, d]);
      if (acc.length >= 4 && acc.length >= 4 + acc.readInt32BE(0)) {
        clearTimeout(timer);
        socket.destroy();
        resolve(acc.subarray(4, 4 + acc.readInt32BE(0)));
      }
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve('closed');
    });
    socket.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

export async function request<T = any>(
  port: number,
  apiKey: number,
  version: number,
  body: unknown,
  responseVersion = version,
): Promise<T> {
  const answer = await exchange(port, frame(apiKey, version, body));
  if (answer === 'closed') throw new Error('connection closed');
  const res = schemaFor(apiKey, 'Response');
  const r = new Reader(answer);
  // ApiVersions always answers with header v0.
  decode(ResponseHeaderSchema, apiKey !== 18 && isFlexibleVersion(res, responseVersion) ? 1 : 0, r);
  return decode<T>(res, responseVersion, r);
}
