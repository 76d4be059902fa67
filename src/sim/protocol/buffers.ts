// Kafka's primitive types on the wire (big-endian, as in the protocol guide):
//   INT8/16/32/64, UINT16/32, FLOAT64, BOOLEAN (one byte, non-zero = true),
//   UNSIGNED_VARINT (7 bits a byte, low groups first), VARINT/VARLONG (zig-zag),
//   STRING = INT16 length + UTF-8 (-1 = null);  COMPACT_STRING = UVARINT length+1 (0 = null),
//   BYTES = INT32 length + bytes (-1 = null);   COMPACT_BYTES = UVARINT length+1,
//   UUID = 16 bytes (written here as Kafka prints it: 22 chars of URL-safe base64).

/** Thrown for any frame that cannot be decoded; the server closes that connection. */
export class MalformedFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedFrameError';
  }
}

export class Reader {
  offset = 0;
  constructor(readonly buf: Buffer) {}

  // Every read checks its bytes once here (the Buffer's own read* check again, cheaply) so a
  // short frame is always a MalformedFrameError, never a RangeError from Buffer.
  private need(n: number): void {
    if (n < 0 || this.offset + n > this.buf.length) {
      throw new MalformedFrameError(`need ${n} bytes at ${this.offset}, frame has ${this.buf.length}`);
    }
  }
  remaining(): number {
    return this.buf.length - this.offset;
  }
  int8(): number {
    this.need(1);
    const v = this.buf.readInt8(this.offset);
    this.offset += 1;
    return v;
  }
  bool(): boolean {
    return this.int8() !== 0;
  }
  int16(): number {
    this.need(2);
    const v = this.buf.readInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  uint16(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }
  int32(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  uint32(): number {
    this.need(4);
    const v = this.buf.readUInt32BE(this.offset);
    this.offset += 4;
    return v;
  }
  int64(): bigint {
    this.need(8);
    const b = this.buf,
      o = this.offset;
    this.offset = o + 8;
    // Within ±2^53 (sizes, offsets, times) one BigInt from a number, not three BigInt steps.
    const hi = (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
    if (hi >= -0x200000 && hi < 0x200000)
      return BigInt(hi * 4294967296 + ((b[o + 4] << 24) >>> 0) + ((b[o + 5] << 16) | (b[o + 6] << 8) | b[o + 7]));
    return b.readBigInt64BE(o);
  }
  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.offset);
    this.offset += 8;
    return v;
  }
  uvarint(): number {
    // One byte is by far the most common (lengths + 1, tag counts): no loop for it.
    const b0 = this.buf[this.offset];
    if (b0 !== undefined && b0 < 0x80) {
      this.offset++;
      return b0;
    }
    let value = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      this.need(1);
      const byte = this.buf[this.offset++];
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new MalformedFrameError('unsigned varint longer than 5 bytes');
  }
  varint(): number {
    const u = this.uvarint();
    return u % 2 === 0 ? u / 2 : -(u + 1) / 2;
  }
  raw(n: number): Buffer {
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }
  /** Kafka prints a Uuid as URL-safe base64 without padding (Uuid.toString()). */
  uuid(): string {
    this.need(16);
    const v = this.buf.toString('base64url', this.offset, this.offset + 16);
    this.offset += 16;
    return v;
  }
  string(compact: boolean, nullable: boolean): string | null {
    const len = compact ? this.uvarint() - 1 : this.int16();
    if (len < 0) {
      if (!nullable) throw new MalformedFrameError('null in a non-nullable string');
      return null;
    }
    // Straight from the frame: no subarray per string.
    this.need(len);
    const v = this.buf.toString('utf8', this.offset, this.offset + len);
    this.offset += len;
    return v;
  }
  bytes(compact: boolean, nullable: boolean): Buffer | null {
    const len = compact ? this.uvarint() - 1 : this.int32();
    if (len < 0) {
      if (!nullable) throw new MalformedFrameError('null in non-nullable bytes');
      return null;
    }
    return Buffer.from(this.raw(len));
  }
  /** Array length, -1 for null. */
  arrayLength(compact: boolean): number {
    const n = compact ? this.uvarint() - 1 : this.int32();
    // Each element takes at least one byte: a longer claim is a lie, not a big array.
    if (n > this.remaining()) throw new MalformedFrameError(`array of ${n} elements in ${this.remaining()} bytes`);
    return n;
  }
}

/** Largest ASCII string written without Buffer.from (a longer one is rare: error messages, configs). */
const ASCII_FAST_MAX = 4096;

export class Writer {
  // Filled chunks, then the current one: a chunk that is full is never copied until
  // toBuffer() (one concat); the next chunk is at least twice the last, so a 4 MB answer
  // takes ~15 chunks, not one allocation per write.
  private chunks: Buffer[] = [];
  private flushed = 0;
  private cur = Buffer.allocUnsafe(256);
  private pos = 0;

  get length(): number {
    return this.flushed + this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n > this.cur.length) this.grow(n);
  }
  private grow(n: number): void {
    this.chunks.push(this.cur.subarray(0, this.pos));
    this.flushed += this.pos;
    this.cur = Buffer.allocUnsafe(Math.max(256, n, this.cur.length * 2));
    this.pos = 0;
  }
  // Integers in range are stored byte by byte, as Buffer's write*BE store them (same
  // expressions, so a fraction truncates the same way); anything else (out of range, NaN, not a
  // number) goes to Buffer's method, which coerces or throws its RangeError as it always did.
  int8(v: number): this {
    if (typeof v !== 'number' || !(v >= -0x80 && v <= 0x7f)) return this.slow(v, 1, 'writeInt8');
    this.ensure(1);
    const b = this.cur,
      p = this.pos;
    b[p] = v;
    this.pos = p + 1;
    return this;
  }
  /** Out of range, NaN or not a number: Buffer's own method, which coerces or throws. */
  private slow(v: number, n: number, write: 'writeInt8' | 'writeInt16BE' | 'writeUInt16BE' | 'writeInt32BE' | 'writeUInt32BE'): this {
    this.ensure(n);
    this.cur[write](v, this.pos);
    this.pos += n;
    return this;
  }
  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }
  int16(v: number): this {
    if (typeof v !== 'number' || !(v >= -0x8000 && v <= 0x7fff)) return this.slow(v, 2, 'writeInt16BE');
    this.ensure(2);
    const b = this.cur,
      p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v;
    this.pos = p + 2;
    return this;
  }
  uint16(v: number): this {
    if (typeof v !== 'number' || !(v >= 0 && v <= 0xffff)) return this.slow(v, 2, 'writeUInt16BE');
    this.ensure(2);
    const b = this.cur,
      p = this.pos;
    b[p] = v >>> 8;
    b[p + 1] = v;
    this.pos = p + 2;
    return this;
  }
  int32(v: number): this {
    if (typeof v !== 'number' || !(v >= -0x80000000 && v <= 0x7fffffff)) return this.slow(v, 4, 'writeInt32BE');
    this.ensure(4);
    const b = this.cur,
      p = this.pos;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
    this.pos = p + 4;
    return this;
  }
  uint32(v: number): this {
    if (typeof v !== 'number' || !(v >= 0 && v <= 0xffffffff)) return this.slow(v, 4, 'writeUInt32BE');
    this.ensure(4);
    const b = this.cur,
      p = this.pos;
    b[p] = v >>> 24;
    b[p + 1] = v >>> 16;
    b[p + 2] = v >>> 8;
    b[p + 3] = v;
    this.pos = p + 4;
    return this;
  }
  int64(v: bigint): this {
    this.ensure(8);
    this.cur.writeBigInt64BE(BigInt.asIntN(64, v), this.pos);
    this.pos += 8;
    return this;
  }
  /**
   * INT64 from a number or a bigint. A safe integer is written as two 32-bit halves (no BigInt
   * made or taken apart per value); anything else goes the way int64(BigInt(v)) always went, so
   * a fraction or NaN still throws and a bigint beyond 64 bits still wraps.
   */
  int64Of(v: number | bigint): this {
    // A bigint within ±2^53 is exactly its Number (one beyond is not a safe integer then).
    const n = typeof v === 'bigint' ? Number(v) : v;
    if (typeof n === 'number' && Number.isSafeInteger(n)) {
      const hi = Math.floor(n / 4294967296);
      return this.int32(hi).uint32(n - hi * 4294967296);
    }
    return this.int64(typeof v === 'bigint' ? v : BigInt(v));
  }
  float64(v: number): this {
    this.ensure(8);
    this.cur.writeDoubleBE(v, this.pos);
    this.pos += 8;
    return this;
  }
  uvarint(v: number): this {
    let value = v;
    while (value >= 0x80) {
      this.int8Unsigned((value & 0x7f) | 0x80);
      value = Math.floor(value / 128);
    }
    return this.int8Unsigned(value);
  }
  varint(v: number): this {
    return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }
  private int8Unsigned(v: number): this {
    this.ensure(1);
    this.cur[this.pos++] = v;
    return this;
  }
  raw(b: Buffer): this {
    this.ensure(b.length);
    b.copy(this.cur, this.pos);
    this.pos += b.length;
    return this;
  }
  uuid(v: string): this {
    const b = Buffer.from(v, 'base64url');
    if (b.length !== 16) throw new Error(`not a Kafka Uuid: ${v}`);
    return this.raw(b);
  }
  string(v: string | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int16(-1);
    if (typeof v === 'string' && v.length <= ASCII_FAST_MAX && this.ascii(v, compact)) return this;
    const b = Buffer.from(v, 'utf8');
    if (compact) this.uvarint(b.length + 1);
    else this.int16(b.length);
    return this.raw(b);
  }
  /**
   * Writes an all-ASCII string (its UTF-8 bytes are its char codes, so its length prefix is
   * known before looking at it) straight into the chunk; false, with nothing written, at the
   * first non-ASCII char.
   */
  private ascii(v: string, compact: boolean): boolean {
    const n = v.length;
    const prefix = compact ? (n + 1 < 0x80 ? 1 : n + 1 < 0x4000 ? 2 : 3) : 2;
    this.ensure(prefix + n);
    const buf = this.cur;
    const start = this.pos + prefix;
    for (let i = 0; i < n; i++) {
      const c = v.charCodeAt(i);
      if (c >= 0x80) return false;
      buf[start + i] = c;
    }
    if (compact) this.uvarint(n + 1);
    else this.int16(n);
    this.pos += n;
    return true;
  }
  bytes(v: Buffer | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int32(-1);
    if (compact) this.uvarint(v.length + 1);
    else this.int32(v.length);
    return this.raw(v);
  }
  arrayLength(n: number, compact: boolean): this {
    return compact ? this.uvarint(n + 1) : this.int32(n);
  }
  toBuffer(): Buffer {
    return Buffer.concat([...this.chunks, this.cur.subarray(0, this.pos)], this.length);
  }
}
