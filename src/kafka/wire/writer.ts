// Writing a Kafka request body into one Buffer sized in advance. The client's Writer appends a
// Buffer per field (a DescribeLogDirs request for 100,000 partitions was 100,402 Buffers,
// built again for every broker asked); the big requests encoded here are written once per
// call and sent as they are to each broker. Encodings as in ./reader.ts.
import { Writer } from '@platformatic/kafka';

export const uvarintSize = (v: number): number => (v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : v < 0x10000000 ? 4 : 5);

/** Bytes of a COMPACT_STRING holding `s`. */
export const compactStringSize = (s: string): number => {
  const n = Buffer.byteLength(s, 'utf8');
  return uvarintSize(n + 1) + n;
};

/** The int32 `v` zigzag-encoded, as a VARINT carries it (0, -1, 1, -2 … → 0, 1, 2, 3 …). */
const zigzag = (v: number): number => ((v << 1) ^ (v >> 31)) >>> 0;

/** Bytes of a VARINT holding the int32 `v`. */
export const varintSize = (v: number): number => uvarintSize(zigzag(v));

/** Bytes of a COMPACT_ARRAY of `n` INT32 (null when n = -1). */
export const int32ArraySize = (n: number): number => uvarintSize(n + 1) + 4 * Math.max(0, n);

export class WireWriter {
  readonly buf: Buffer;
  pos = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  int8(v: number): this {
    this.pos = this.buf.writeInt8(v, this.pos);
    return this;
  }

  int16(v: number): this {
    this.pos = this.buf.writeInt16BE(v, this.pos);
    return this;
  }

  int32(v: number): this {
    this.pos = this.buf.writeInt32BE(v, this.pos);
    return this;
  }

  int64(v: bigint): this {
    this.pos = this.buf.writeBigInt64BE(v, this.pos);
    return this;
  }

  /** BOOLEAN: 1 or 0. */
  bool(v: boolean): this {
    this.buf[this.pos++] = v ? 1 : 0;
    return this;
  }

  /** `n` zero bytes (a null UUID is 16 of them). */
  zeros(n: number): this {
    this.buf.fill(0, this.pos, this.pos + n);
    this.pos += n;
    return this;
  }

  uvarint(v: number): this {
    while (v >= 0x80) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    this.buf[this.pos++] = v;
    return this;
  }

  /** VARINT: the int32 `v` zigzag-encoded (record batch fields). */
  varint(v: number): this {
    return this.uvarint(zigzag(v));
  }

  /** `n` bytes of `s` in UTF-8 (n = Buffer.byteLength(s)), no length before them. */
  utf8(s: string, n: number): this {
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
    return this;
  }

  /** COMPACT_ARRAY length (n = -1: null). */
  compactLength(n: number): this {
    return this.uvarint(n + 1);
  }

  compactString(s: string): this {
    const n = Buffer.byteLength(s, 'utf8');
    this.uvarint(n + 1);
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
    return this;
  }

  int32Array(values: readonly number[]): this {
    this.compactLength(values.length);
    let pos = this.pos;
    for (let i = 0; i < values.length; i++) pos = this.buf.writeInt32BE(values[i], pos);
    this.pos = pos;
    return this;
  }

  /** An empty TAG_BUFFER. */
  noTaggedFields(): this {
    this.buf[this.pos++] = 0;
    return this;
  }

  /** The body written, checked against the size it was given (a wrong size is a bug here, not in the request). */
  done(): Buffer {
    if (this.pos !== this.buf.length) throw new Error(`request body is ${this.pos} bytes, ${this.buf.length} were counted`);
    return this.buf;
  }
}

/** A request body for the connection (which adds the header): the client's Writer over our Buffer, not copied. */
export const payloadOf = (body: Buffer): Writer => Writer.create().append(body);
