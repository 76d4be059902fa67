// A schema-driven encoder/decoder for Kafka messages, following the rules of
// Kafka's generated MessageData classes:
// - a field exists only in its `versions`; absent fields decode to their default;
// - in flexible versions strings, bytes and arrays are compact (UVARINT length + 1)
//   and every struct ends with a tagged-field section: UVARINT count, then per field
//   UVARINT tag, UVARINT size, data. Tagged fields are written only when they differ
//   from their default; unknown tags are skipped;
// - `records` is nullable bytes.
import { Reader, Writer, MalformedFrameError } from './buffers.js';
import { inRange, type FieldSchema, type MessageSchema, type VersionRange } from './schema.js';

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

function isArray(t: string): boolean { return t.startsWith('[]'); }
function elementType(t: string): string { return isArray(t) ? t.slice(2) : t; }

/** The default a field takes when it is absent from a version or left out by the caller. */
export function defaultValue(field: FieldSchema, version: number): Value {
  const d = field.d;
  if (d === 'null' || (d === undefined && field.nv && inRange(field.nv, version) && field.t === 'struct')) return null;
  if (isArray(field.t)) return [];
  switch (field.t) {
    case 'bool': return d === 'true';
    case 'int64': return d !== undefined ? BigInt(d) : 0n;
    case 'int8': case 'int16': case 'uint16': case 'int32': case 'uint32': case 'float64':
      return d !== undefined ? Number(d) : 0;
    case 'string': return d ?? '';
    case 'uuid': return 'AAAAAAAAAAAAAAAAAAAAAA'; // Uuid.ZERO_UUID
    case 'bytes': return Buffer.alloc(0);
    case 'records': return null;
    case 'struct': return defaultStruct(field.f ?? [], version);
    default: throw new Error(`no default for ${field.t}`);
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
    case 'bool': return r.bool();
    case 'int8': return r.int8();
    case 'int16': return r.int16();
    case 'uint16': return r.uint16();
    case 'int32': return r.int32();
    case 'uint32': return r.uint32();
    case 'int64': return r.int64();
    case 'float64': return r.float64();
    case 'uuid': return r.uuid();
    case 'string': return r.string(compact, nullable);
    case 'bytes': return r.bytes(compact, nullable);
    case 'records': return r.bytes(compact, true);
    case 'struct': {
      if (nullable && !isArray(field.t)) {
        // A nullable struct is prefixed by INT8: -1 null, 1 present.
        if (r.int8() < 0) return null;
      }
      return decodeStruct(field.f ?? [], r, ctx);
    }
    default: throw new Error(`unknown type ${t}`);
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
    if (isArray(t)) { w.arrayLength(-1, compact); return; }
    switch (t) {
      case 'string': w.string(null, compact); return;
      case 'bytes': case 'records': w.bytes(null, compact); return;
      case 'struct': w.int8(-1); return;
      default: throw new Error(`${field.n}: null ${t}`);
    }
  }
  if (isArray(t)) {
    const arr = v as Value[];
    w.arrayLength(arr.length, compact);
    const element = elementType(t);
    if (element === 'int32') for (const item of arr) w.int32(item as number);
    else if (element === 'struct' && !arr.includes(null) && !arr.includes(undefined)) for (const item of arr) encodeStruct(field.f ?? [], item as Struct, w, ctx);
    else for (const item of arr) encodeValue(field, element, item, w, ctx);
    return;
  }
  switch (t) {
    case 'bool': w.bool(v as boolean); return;
    case 'int8': w.int8(v as number); return;
    case 'int16': w.int16(v as number); return;
    case 'uint16': w.uint16(v as number); return;
    case 'int32': w.int32(v as number); return;
    case 'uint32': w.uint32(v as number); return;
    case 'int64': w.int64(typeof v === 'bigint' ? v : BigInt(v as number)); return;
    case 'float64': w.float64(v as number); return;
    case 'uuid': w.uuid(v as string); return;
    case 'string': w.string(v as string, compact); return;
    case 'bytes': case 'records': w.bytes(v as Buffer, compact); return;
    case 'struct':
      if (nullable && !isArray(field.t)) w.int8(1);
      encodeStruct(field.f ?? [], v as Struct, w, ctx);
      return;
    default: throw new Error(`unknown type ${t}`);
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
  return inRange(schema.valid as VersionRange, version);
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
