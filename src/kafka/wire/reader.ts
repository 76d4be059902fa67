// Reading a Kafka response from one contiguous Buffer at plain offsets. The client's own
// Reader goes through a DynamicBuffer (a list of socket chunks: every read looks up its chunk)
// and reads each INT64 as a BigInt; at 100,000 partitions per answer that was the gateway's
// largest CPU cost. The few responses decoded here (see src/kafka/apis) are big and hot.
//
// Encodings (Kafka's protocol guide, flexible versions):
//   INT16/INT32/INT64  big-endian two's complement
//   BOOLEAN            one byte, 0 = false, anything else = true (as Kafka's ByteBuffer reader)
//   UNSIGNED_VARINT    7 bits a byte, low group first, high bit = more bytes; at most 5 bytes
//   COMPACT_STRING     UNSIGNED_VARINT length+1 (0 = null), then UTF-8 bytes
//   COMPACT_ARRAY      UNSIGNED_VARINT count+1 (0 = null), then the elements
//   TAG_BUFFER         UNSIGNED_VARINT count, then per field: UNSIGNED_VARINT tag,
//                      UNSIGNED_VARINT size, size bytes (skipped: no field of ours is tagged)
import { internReplicaListAt } from '../../domain/replica-list.js';
import type { Reader } from '@platformatic/kafka';

/** A response that ends before its grammar does, or a varint longer than 5 bytes. */
export class MalformedResponseError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedResponseError';
  }
}

export class WireReader {
  readonly buf: Buffer;
  pos: number;

  constructor(buf: Buffer, pos = 0) {
    this.buf = buf;
    this.pos = pos;
  }

  /**
   * The bytes the client's Reader has left, as one Buffer. The connection hands each parser
   * a Reader over the message alone, so its buffer ends where the message ends; a message
   * that came in several socket chunks is copied into one Buffer once.
   */
  static fromClientReader(reader: Reader): WireReader {
    return new WireReader(reader.buffer.buffer, reader.position);
  }

  get remaining(): number {
    return this.buf.length - this.pos;
  }

  int16(): number {
    const v = this.buf.readInt16BE(this.pos);
    this.pos += 2;
    return v;
  }

  int32(): number {
    const v = this.buf.readInt32BE(this.pos);
    this.pos += 4;
    return v;
  }

  /** INT64 as a number: exact up to 2^53 (byte counts, offsets), rounded like Number(bigint) above. */
  int64(): number {
    const hi = this.buf.readInt32BE(this.pos);
    const lo = this.buf.readUInt32BE(this.pos + 4);
    this.pos += 8;
    return hi * 4294967296 + lo;
  }

  /** INT64 exactly, as a bigint (offsets). */
  bigint64(): bigint {
    if (this.remaining < 8) throw new MalformedResponseError('response ends inside an INT64');
    const v = this.buf.readBigInt64BE(this.pos);
    this.pos += 8;
    return v;
  }

  bool(): boolean {
    return this.buf.readUInt8(this.pos++) !== 0;
  }

  skip(n: number): void {
    if (n > this.buf.length - this.pos) throw new MalformedResponseError(`response ends ${n - this.remaining} bytes early`);
    this.pos += n;
  }

  uvarint(): number {
    const buf = this.buf;
    let pos = this.pos;
    if (pos >= buf.length) throw new MalformedResponseError('response ends inside a varint');
    let b = buf[pos++];
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let value = b & 0x7f;
    let scale = 128;
    for (let i = 1; i < 5; i++) {
      if (pos >= buf.length) throw new MalformedResponseError('response ends inside a varint');
      b = buf[pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.pos = pos;
        return value;
      }
      scale *= 128;
    }
    throw new MalformedResponseError('varint longer than 5 bytes');
  }

  /** COMPACT_ARRAY / COMPACT_STRING length: -1 = null. */
  compactLength(): number {
    return this.uvarint() - 1;
  }

  compactNullableString(): string | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    const start = this.pos;
    this.skip(n);
    return this.buf.toString('utf8', start, start + n);
  }

  /** COMPACT_STRING; a null where the grammar allows none reads as '' (as the client's reader does). */
  compactString(): string {
    return this.compactNullableString() ?? '';
  }

  /** COMPACT_ARRAY of INT32 (no tagged fields per element); null reads as []. */
  int32Array(): number[] {
    const n = this.compactLength();
    if (n <= 0) return [];
    if (n * 4 > this.remaining) throw new MalformedResponseError('response ends inside an INT32 array');
    // Sized once: pushing onto [] reserves 17 slots, and 100,000 partitions hold three arrays each.
    const out = new Array<number>(n);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = 0; i < n; i++, pos += 4) out[i] = buf.readInt32BE(pos);
    this.pos = pos;
    return out;
  }

  /**
   * COMPACT_ARRAY of INT32 (no tagged fields per element) as a shared frozen list (replica ids:
   * src/domain/replica-list.ts), no array made for one seen before; null reads as [].
   */
  sharedInt32Array(): readonly number[] {
    const n = this.compactLength();
    if (n <= 0) return internReplicaListAt(this.buf, this.pos, 0);
    if (n * 4 > this.remaining) throw new MalformedResponseError('response ends inside an INT32 array');
    const list = internReplicaListAt(this.buf, this.pos, n);
    this.pos += n * 4;
    return list;
  }

  /** COMPACT_ARRAY of INT32 skipped (null or not). */
  skipInt32Array(): void {
    const n = this.compactLength();
    if (n > 0) this.skip(n * 4);
  }

  /** TAG_BUFFER: every field skipped (the gateway reads no tagged field of these responses). */
  skipTaggedFields(): void {
    // Nearly always empty: one zero byte.
    if (this.pos < this.buf.length && this.buf[this.pos] === 0) {
      this.pos++;
      return;
    }
    const count = this.uvarint();
    for (let i = 0; i < count; i++) {
      this.uvarint(); // tag
      this.skip(this.uvarint());
    }
  }
}
