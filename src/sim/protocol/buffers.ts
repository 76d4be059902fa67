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

  private need(n: number): void {
    if (n < 0 || this.offset + n > this.buf.length) {
      throw new MalformedFrameError(`need ${n} bytes at ${this.offset}, frame has ${this.buf.length}`);
    }
  }
  remaining(): number { return this.buf.length - this.offset; }
  int8(): number { this.need(1); const v = this.buf.readInt8(this.offset); this.offset += 1; return v; }
  bool(): boolean { return this.int8() !== 0; }
  int16(): number { this.need(2); const v = this.buf.readInt16BE(this.offset); this.offset += 2; return v; }
  uint16(): number { this.need(2); const v = this.buf.readUInt16BE(this.offset); this.offset += 2; return v; }
  int32(): number { this.need(4); const v = this.buf.readInt32BE(this.offset); this.offset += 4; return v; }
  uint32(): number { this.need(4); const v = this.buf.readUInt32BE(this.offset); this.offset += 4; return v; }
  int64(): bigint { this.need(8); const v = this.buf.readBigInt64BE(this.offset); this.offset += 8; return v; }
  float64(): number { this.need(8); const v = this.buf.readDoubleBE(this.offset); this.offset += 8; return v; }
  uvarint(): number {
    let value = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      this.need(1);
      const byte = this.buf[this.offset++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    throw new MalformedFrameError('unsigned varint longer than 5 bytes');
  }
  varint(): number { const u = this.uvarint(); return (u % 2 === 0) ? u / 2 : -(u + 1) / 2; }
  raw(n: number): Buffer { this.need(n); const v = this.buf.subarray(this.offset, this.offset + n); this.offset += n; return v; }
  /** Kafka prints a Uuid as URL-safe base64 without padding (Uuid.toString()). */
  uuid(): string {
    return this.raw(16).toString('base64url');
  }
  string(compact: boolean, nullable: boolean): string | null {
    const len = compact ? this.uvarint() - 1 : this.int16();
    if (len < 0) {
      if (!nullable) throw new MalformedFrameError('null in a non-nullable string');
      return null;
    }
    return this.raw(len).toString('utf8');
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

export class Writer {
  private chunks: Buffer[] = [];
  private cur = Buffer.allocUnsafe(256);
  private pos = 0;
  length = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.cur.length) return;
    this.chunks.push(this.cur.subarray(0, this.pos));
    this.cur = Buffer.allocUnsafe(Math.max(256, n, this.cur.length * 2));
    this.pos = 0;
  }
  int8(v: number): this { this.ensure(1); this.cur.writeInt8(v, this.pos); this.pos += 1; this.length += 1; return this; }
  bool(v: boolean): this { return this.int8(v ? 1 : 0); }
  int16(v: number): this { this.ensure(2); this.cur.writeInt16BE(v, this.pos); this.pos += 2; this.length += 2; return this; }
  uint16(v: number): this { this.ensure(2); this.cur.writeUInt16BE(v, this.pos); this.pos += 2; this.length += 2; return this; }
  int32(v: number): this { this.ensure(4); this.cur.writeInt32BE(v, this.pos); this.pos += 4; this.length += 4; return this; }
  uint32(v: number): this { this.ensure(4); this.cur.writeUInt32BE(v, this.pos); this.pos += 4; this.length += 4; return this; }
  int64(v: bigint): this { this.ensure(8); this.cur.writeBigInt64BE(BigInt.asIntN(64, v), this.pos); this.pos += 8; this.length += 8; return this; }
  float64(v: number): this { this.ensure(8); this.cur.writeDoubleBE(v, this.pos); this.pos += 8; this.length += 8; return this; }
  uvarint(v: number): this {
    let value = v;
    while (value >= 0x80) {
      this.int8Unsigned((value & 0x7f) | 0x80);
      value = Math.floor(value / 128);
    }
    return this.int8Unsigned(value);
  }
  varint(v: number): this { return this.uvarint(v >= 0 ? v * 2 : -v * 2 - 1); }
  private int8Unsigned(v: number): this { this.ensure(1); this.cur[this.pos++] = v; this.length += 1; return this; }
  raw(b: Buffer): this { this.ensure(b.length); b.copy(this.cur, this.pos); this.pos += b.length; this.length += b.length; return this; }
  uuid(v: string): this {
    const b = Buffer.from(v, 'base64url');
    if (b.length !== 16) throw new Error(`not a Kafka Uuid: ${v}`);
    return this.raw(b);
  }
  string(v: string | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int16(-1);
    const b = Buffer.from(v, 'utf8');
    if (compact) this.uvarint(b.length + 1); else this.int16(b.length);
    return this.raw(b);
  }
  bytes(v: Buffer | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int32(-1);
    if (compact) this.uvarint(v.length + 1); else this.int32(v.length);
    return this.raw(v);
  }
  arrayLength(n: number, compact: boolean): this {
    return compact ? this.uvarint(n + 1) : this.int32(n);
  }
  toBuffer(): Buffer {
    return Buffer.concat([...this.chunks, this.cur.subarray(0, this.pos)], this.length);
  }
}
