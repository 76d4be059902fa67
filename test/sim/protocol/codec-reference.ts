// The simulator's codec as it was before it was compiled per (schema, version): the schema
// walked field by field for every struct, with its own Reader and Writer of that time. Kept
// unchanged as the reference test/sim/protocol/codec-identity.test.ts compares the compiled
// codec with (same bytes out, same values and errors in) and bench/sim-codec.ts times it
// against. Do not "improve" it: its worth is that it is the old behaviour.
import { MalformedFrameError } from '../../../src/sim/protocol/buffers.js';
import { inRange, type FieldSchema, type MessageSchema } from '../../../src/sim/protocol/schema.js';

export class Reader {
  offset = 0;
  constructor(readonly buf: Buffer) {}

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
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }
  float64(): number {
    this.need(8);
    const v = this.buf.readDoubleBE(this.offset);
    this.offset += 8;
    return v;
  }
  uvarint(): number {
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
  int8(v: number): this {
    this.ensure(1);
    this.cur.writeInt8(v, this.pos);
    this.pos += 1;
    this.length += 1;
    return this;
  }
  bool(v: boolean): this {
    return this.int8(v ? 1 : 0);
  }
  int16(v: number): this {
    this.ensure(2);
    this.cur.writeInt16BE(v, this.pos);
    this.pos += 2;
    this.length += 2;
    return this;
  }
  uint16(v: number): this {
    this.ensure(2);
    this.cur.writeUInt16BE(v, this.pos);
    this.pos += 2;
    this.length += 2;
    return this;
  }
  int32(v: number): this {
    this.ensure(4);
    this.cur.writeInt32BE(v, this.pos);
    this.pos += 4;
    this.length += 4;
    return this;
  }
  uint32(v: number): this {
    this.ensure(4);
    this.cur.writeUInt32BE(v, this.pos);
    this.pos += 4;
    this.length += 4;
    return this;
  }
  int64(v: bigint): this {
    this.ensure(8);
    this.cur.writeBigInt64BE(BigInt.asIntN(64, v), this.pos);
    this.pos += 8;
    this.length += 8;
    return this;
  }
  float64(v: number): this {
    this.ensure(8);
    this.cur.writeDoubleBE(v, this.pos);
    this.pos += 8;
    this.length += 8;
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
    this.length += 1;
    return this;
  }
  raw(b: Buffer): this {
    this.ensure(b.length);
    b.copy(this.cur, this.pos);
    this.pos += b.length;
    this.length += b.length;
    return this;
  }
  uuid(v: string): this {
    const b = Buffer.from(v, 'base64url');
    if (b.length !== 16) throw new Error(`not a Kafka Uuid: ${v}`);
    return this.raw(b);
  }
  string(v: string | null, compact: boolean): this {
    if (v === null) return compact ? this.uvarint(0) : this.int16(-1);
    const b = Buffer.from(v, 'utf8');
    if (compact) this.uvarint(b.length + 1);
    else this.int16(b.length);
    return this.raw(b);
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

type Value = unknown;
type Struct = Record<string, Value>;

interface Ctx {
  version: number;
  flexible: boolean;
}

function isFlexible(field: FieldSchema, ctx: Ctx): boolean {
  if (field.fv !== undefined) return inRange(field.fv, ctx.version);
  return ctx.flexible;
}

function isArray(t: string): boolean {
  return t.startsWith('[]');
}
function elementType(t: string): string {
  return isArray(t) ? t.slice(2) : t;
}

/** The default a field takes when it is absent from a version or left out by the caller. */
export function defaultValue(field: FieldSchema, version: number): Value {
  const d = field.d;
  if (d === 'null' || (d === undefined && field.nv && inRange(field.nv, version) && field.t === 'struct')) return null;
  if (isArray(field.t)) return [];
  switch (field.t) {
    case 'bool':
      return d === 'true';
    case 'int64':
      return d !== undefined ? BigInt(d) : 0n;
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'float64':
      return d !== undefined ? Number(d) : 0;
    case 'string':
      return d ?? '';
    case 'uuid':
      return 'AAAAAAAAAAAAAAAAAAAAAA'; // Uuid.ZERO_UUID
    case 'bytes':
      return Buffer.alloc(0);
    case 'records':
      return null;
    case 'struct':
      return defaultStruct(field.f ?? [], version);
    default:
      throw new Error(`no default for ${field.t}`);
  }
}

function defaultStruct(fields: readonly FieldSchema[], version: number): Struct {
  const s: Struct = {};
  for (const f of fields) s[f.n] = defaultValue(f, version);
  return s;
}

// ---------------------------------------------------------------- per-version field plans

/** What one field of a struct does in one version, worked out once (responses may hold 100k structs). */
interface FieldPlan {
  field: FieldSchema;
  /** 'absent' = not in this version (decodes to its default), 'tagged', or 'plain'. */
  kind: 'absent' | 'tagged' | 'plain';
}

const plans = new WeakMap<readonly FieldSchema[], Map<number, FieldPlan[]>>();

function planFor(fields: readonly FieldSchema[], ctx: Ctx): FieldPlan[] {
  let byVersion = plans.get(fields);
  if (!byVersion) plans.set(fields, (byVersion = new Map()));
  const key = ctx.version * 2 + (ctx.flexible ? 1 : 0);
  let plan = byVersion.get(key);
  if (!plan) {
    plan = fields.map((field) => ({
      field,
      kind: !inRange(field.v, ctx.version) ? 'absent' : ctx.flexible && inRange(field.tv, ctx.version) ? 'tagged' : 'plain',
    }));
    byVersion.set(key, plan);
  }
  return plan;
}

// ---------------------------------------------------------------- decoding

function decodeValue(field: FieldSchema, t: string, r: Reader, ctx: Ctx): Value {
  const compact = isFlexible(field, ctx);
  const nullable = inRange(field.nv, ctx.version);
  if (isArray(t)) {
    const n = r.arrayLength(compact);
    if (n < 0) {
      if (!nullable) throw new MalformedFrameError(`null array ${field.n}`);
      return null;
    }
    const out: Value[] = new Array(n);
    const element = elementType(t);
    if (element === 'int32') for (let i = 0; i < n; i++) out[i] = r.int32();
    else for (let i = 0; i < n; i++) out[i] = decodeValue(field, element, r, ctx);
    return out;
  }
  switch (t) {
    case 'bool':
      return r.bool();
    case 'int8':
      return r.int8();
    case 'int16':
      return r.int16();
    case 'uint16':
      return r.uint16();
    case 'int32':
      return r.int32();
    case 'uint32':
      return r.uint32();
    case 'int64':
      return r.int64();
    case 'float64':
      return r.float64();
    case 'uuid':
      return r.uuid();
    case 'string':
      return r.string(compact, nullable);
    case 'bytes':
      return r.bytes(compact, nullable);
    case 'records':
      return r.bytes(compact, true);
    case 'struct': {
      if (nullable && !isArray(field.t)) {
        // A nullable struct is prefixed by INT8: -1 null, 1 present.
        if (r.int8() < 0) return null;
      }
      return decodeStruct(field.f ?? [], r, ctx);
    }
    default:
      throw new Error(`unknown type ${t}`);
  }
}

function decodeStruct(fields: readonly FieldSchema[], r: Reader, ctx: Ctx): Struct {
  const s: Struct = {};
  let tagged: Map<number, FieldSchema> | null = null;
  for (const { field: f, kind } of planFor(fields, ctx)) {
    if (kind === 'absent') {
      s[f.n] = defaultValue(f, ctx.version);
    } else if (kind === 'tagged') {
      s[f.n] = defaultValue(f, ctx.version);
      (tagged ??= new Map()).set(f.tag!, f);
    } else {
      s[f.n] = decodeValue(f, f.t, r, ctx);
    }
  }
  if (ctx.flexible) {
    const count = r.uvarint();
    for (let i = 0; i < count; i++) {
      const tag = r.uvarint();
      const size = r.uvarint();
      const data = r.raw(size);
      const f = tagged?.get(tag);
      if (f) s[f.n] = decodeValue(f, f.t, new Reader(data), ctx);
    }
  }
  return s;
}

// ---------------------------------------------------------------- encoding

function encodeValue(field: FieldSchema, t: string, v: Value, w: Writer, ctx: Ctx): void {
  const compact = isFlexible(field, ctx);
  const nullable = inRange(field.nv, ctx.version);
  if (v === null || v === undefined) {
    if (v === undefined) return encodeValue(field, t, defaultValue(field, ctx.version), w, ctx);
    if (!nullable && t !== 'records') throw new Error(`${field.n} is not nullable in v${ctx.version}`);
    if (isArray(t)) {
      w.arrayLength(-1, compact);
      return;
    }
    switch (t) {
      case 'string':
        w.string(null, compact);
        return;
      case 'bytes':
      case 'records':
        w.bytes(null, compact);
        return;
      case 'struct':
        w.int8(-1);
        return;
      default:
        throw new Error(`${field.n}: null ${t}`);
    }
  }
  if (isArray(t)) {
    const arr = v as Value[];
    w.arrayLength(arr.length, compact);
    const element = elementType(t);
    if (element === 'int32') for (const item of arr) w.int32(item as number);
    else if (element === 'struct' && !arr.includes(null) && !arr.includes(undefined))
      for (const item of arr) encodeStruct(field.f ?? [], item as Struct, w, ctx);
    else for (const item of arr) encodeValue(field, element, item, w, ctx);
    return;
  }
  switch (t) {
    case 'bool':
      w.bool(v as boolean);
      return;
    case 'int8':
      w.int8(v as number);
      return;
    case 'int16':
      w.int16(v as number);
      return;
    case 'uint16':
      w.uint16(v as number);
      return;
    case 'int32':
      w.int32(v as number);
      return;
    case 'uint32':
      w.uint32(v as number);
      return;
    case 'int64':
      w.int64(typeof v === 'bigint' ? v : BigInt(v as number));
      return;
    case 'float64':
      w.float64(v as number);
      return;
    case 'uuid':
      w.uuid(v as string);
      return;
    case 'string':
      w.string(v as string, compact);
      return;
    case 'bytes':
    case 'records':
      w.bytes(v as Buffer, compact);
      return;
    case 'struct':
      if (nullable && !isArray(field.t)) w.int8(1);
      encodeStruct(field.f ?? [], v as Struct, w, ctx);
      return;
    default:
      throw new Error(`unknown type ${t}`);
  }
}

function equalsDefault(f: FieldSchema, v: Value, version: number): boolean {
  if (v === undefined) return true;
  const d = defaultValue(f, version);
  if (Array.isArray(v)) return Array.isArray(d) && v.length === 0;
  if (Buffer.isBuffer(v)) return Buffer.isBuffer(d) && v.length === 0;
  return v === d;
}

function encodeStruct(fields: readonly FieldSchema[], s: Struct, w: Writer, ctx: Ctx): void {
  const tagged: { tag: number; data: Buffer }[] = [];
  for (const { field: f, kind } of planFor(fields, ctx)) {
    if (kind === 'absent') continue;
    const v = s[f.n];
    if (kind === 'tagged') {
      if (equalsDefault(f, v, ctx.version)) continue;
      const tw = new Writer();
      encodeValue(f, f.t, v, tw, ctx);
      tagged.push({ tag: f.tag!, data: tw.toBuffer() });
    } else {
      encodeValue(f, f.t, v, w, ctx);
    }
  }
  if (ctx.flexible) {
    tagged.sort((a, b) => a.tag - b.tag);
    w.uvarint(tagged.length);
    for (const t of tagged) w.uvarint(t.tag).uvarint(t.data.length).raw(t.data);
  }
}

// ---------------------------------------------------------------- API

export function isFlexibleVersion(schema: MessageSchema, version: number): boolean {
  return inRange(schema.flexible, version);
}

export function supports(schema: MessageSchema, version: number): boolean {
  return inRange(schema.valid, version);
}

export function decode<T>(schema: MessageSchema, version: number, r: Reader): T {
  if (!supports(schema, version)) throw new MalformedFrameError(`${schema.name} v${version} is not a valid version`);
  return decodeStruct(schema.fields, r, { version, flexible: isFlexibleVersion(schema, version) }) as T;
}

export function encode<T>(schema: MessageSchema, version: number, value: T, w: Writer = new Writer()): Writer {
  if (!supports(schema, version)) throw new Error(`${schema.name} v${version} is not a valid version`);
  encodeStruct(schema.fields, value as Struct, w, { version, flexible: isFlexibleVersion(schema, version) });
  return w;
}
