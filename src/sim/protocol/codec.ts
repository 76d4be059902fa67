// A schema-driven encoder/decoder for Kafka messages, following the rules of
// Kafka's generated MessageData classes:
// - a field exists only in its `versions`; absent fields decode to their default;
// - in flexible versions strings, bytes and arrays are compact (UVARINT length + 1)
//   and every struct ends with a tagged-field section: UVARINT count, then per field
//   UVARINT tag, UVARINT size, data. Tagged fields are written only when they differ
//   from their default; unknown tags are skipped;
// - `records` is nullable bytes.
//
// Each (schema, version) is compiled once (below) instead of walking the schema per field per
// struct: an answer of 100,000 partitions is ~1 million fields. The bytes written and the
// values read are those of the codec before it was compiled, kept as
// test/sim/protocol/codec-reference.ts and compared with this one by codec-identity.test.ts.
import { Reader, Writer, MalformedFrameError } from './buffers.js';
import { inRange, type FieldSchema, type MessageSchema } from './schema.js';

type Value = unknown;
type Struct = Record<string, Value>;

function isArray(t: string): boolean {
  return t.startsWith('[]');
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

// ---------------------------------------------------------------- compiled codecs
//
// Each struct of a (schema, version) becomes two functions generated as source: the encoder
// writes its fields one statement each, the decoder returns one object literal of all its
// fields in the schema's order. Everything the version decides (present, tagged, nullable,
// compact, the default) is settled when the source is written, so none of it is looked at per
// struct, and V8 sees fixed property names (one object shape per struct type, monomorphic
// loads) and direct calls of Writer/Reader methods it can inline. Field names reach the source
// only as JSON string literals; every other value (defaults, nested codecs, helpers) is passed
// in as an argument of the generated function, never written into its text.

interface StructCodec {
  encode: (w: Writer, s: Struct) => void;
  decode: (r: Reader) => Struct;
}

interface Ctx {
  version: number;
  flexible: boolean;
}

/** The source of one generated function and the values it closes over. */
class Source {
  private readonly names: string[] = [];
  private readonly values: unknown[] = [];
  private vars = 0;

  /** A name in the source for a value passed in. */
  ref(value: unknown): string {
    const name = `$${this.values.length}`;
    this.names.push(name);
    this.values.push(value);
    return name;
  }

  /** A fresh local variable name (nested array loops). */
  local(prefix: string): string {
    return `${prefix}${this.vars++}`;
  }

  build<T>(body: string): T {
    // The codec compiles each message schema once into straight-line code; the body is generated here from the schema, never from a request.
    // eslint-disable-next-line @typescript-eslint/no-implied-eval
    const make = new Function(...this.names, `'use strict';\n${body}`) as (...values: unknown[]) => T;
    return make(...this.values);
  }
}

const key = (name: string): string => JSON.stringify(name);

/** Compiled structs per field list, by version * 2 + flexible: a nested struct is compiled once. */
const structs = new WeakMap<readonly FieldSchema[], Map<number, StructCodec>>();

function compileStruct(fields: readonly FieldSchema[], ctx: Ctx): StructCodec {
  let byVersion = structs.get(fields);
  if (!byVersion) structs.set(fields, (byVersion = new Map<number, StructCodec>()));
  const k = ctx.version * 2 + (ctx.flexible ? 1 : 0);
  let codec = byVersion.get(k);
  if (!codec) byVersion.set(k, (codec = buildStruct(fields, ctx)));
  return codec;
}

function codecFor(schema: MessageSchema, version: number): StructCodec {
  return compileStruct(schema.fields, { version, flexible: inRange(schema.flexible, version) });
}

function notNullable(field: FieldSchema, ctx: Ctx): Error {
  return new Error(`${field.n} is not nullable in v${ctx.version}`);
}

/**
 * What a null of type `t` does: refused unless the field is nullable in this version (records
 * always accept it), else written as its type's null. Rare, so a plain closure.
 */
function nullWriter(field: FieldSchema, t: string, ctx: Ctx, compact: boolean, nullable: boolean): (w: Writer) => void {
  if (!nullable && t !== 'records')
    return () => {
      throw notNullable(field, ctx);
    };
  if (isArray(t)) return (w) => void w.arrayLength(-1, compact);
  switch (t) {
    case 'string':
      return (w) => void w.string(null, compact);
    case 'bytes':
    case 'records':
      return (w) => void w.bytes(null, compact);
    case 'struct':
      return (w) => void w.int8(-1);
    default:
      return () => {
        throw new Error(`${field.n}: null ${t}`);
      };
  }
}

/**
 * Statements writing the value in variable `v` (never undefined) of type `t`: a field's type,
 * or its array's element type (then `nullable` and `compact` are the array field's, as in Kafka).
 */
function encodeStatements(src: Source, field: FieldSchema, t: string, v: string, ctx: Ctx, compact: boolean, nullable: boolean): string {
  const onNull = `if (${v} === null) ${src.ref(nullWriter(field, t, ctx, compact, nullable))}(w); else `;
  if (isArray(t)) {
    const element = t.slice(2);
    const n = src.local('n'),
      i = src.local('i'),
      x = src.local('x');
    // Not an array (a typed array will do): a TypeError, as it was when the codec iterated it.
    const notArray = src.ref(() => new TypeError(`${field.n} is not an array`));
    const head =
      `{ if (!Array.isArray(${v}) && !ArrayBuffer.isView(${v})) throw ${notArray}(); ` +
      `const ${n} = ${v}.length; w.arrayLength(${n}, ${compact}); for (let ${i} = 0; ${i} < ${n}; ${i}++) `;
    // An int32 element is written as it comes (null or undefined write 0, as they always did).
    if (element === 'int32') return `${onNull}${head}w.int32(${v}[${i}]); }`;
    // An element left undefined is written as the field's default would be (the array's
    // default, [] or null, taken as the element: what the codec always did).
    const fieldDefault = src.ref(defaultValue(field, ctx.version));
    return `${onNull}${head}{ let ${x} = ${v}[${i}]; if (${x} === undefined) ${x} = ${fieldDefault}; ${encodeStatements(src, field, element, x, ctx, compact, nullable)} } }`;
  }
  switch (t) {
    case 'bool':
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'float64':
    case 'uuid':
      return `${onNull}w.${t}(${v});`;
    case 'int64':
      return `${onNull}w.int64Of(${v});`;
    case 'string':
      return `${onNull}w.string(${v}, ${compact});`;
    case 'bytes':
    case 'records':
      return `${onNull}w.bytes(${v}, ${compact});`;
    case 'struct': {
      const sub = src.ref(compileStruct(field.f ?? [], ctx).encode);
      // A nullable struct (not an array's element) is prefixed by INT8: -1 null, 1 present.
      return `${onNull}{ ${nullable && !isArray(field.t) ? 'w.int8(1); ' : ''}${sub}(w, ${v}); }`;
    }
    default:
      throw new Error(`unknown type ${t}`);
  }
}

/** An expression reading one value of type `t` from Reader `r` (a field's type or its array's element type). */
function decodeExpression(src: Source, field: FieldSchema, t: string, ctx: Ctx, compact: boolean, nullable: boolean): string {
  if (isArray(t)) return `${src.ref(arrayDecoder(field, t.slice(2), ctx, compact, nullable))}(r)`;
  switch (t) {
    case 'bool':
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'int64':
    case 'float64':
    case 'uuid':
      return `r.${t}()`;
    case 'string':
      return `r.string(${compact}, ${nullable})`;
    case 'bytes':
      return `r.bytes(${compact}, ${nullable})`;
    case 'records':
      return `r.bytes(${compact}, true)`;
    case 'struct': {
      const sub = src.ref(compileStruct(field.f ?? [], ctx).decode);
      return nullable && !isArray(field.t) ? `(r.int8() < 0 ? null : ${sub}(r))` : `${sub}(r)`;
    }
    default:
      throw new Error(`unknown type ${t}`);
  }
}

/**
 * INT32 elements all there: read from the frame with one bounds check for the array (the
 * bytes of Buffer.readInt32BE); else element by element, to fail where the reference did.
 */
const INT32_ELEMENTS = `const b = r.buf; let o = r.offset;
    if (o + 4 * n <= b.length) {
      for (let i = 0; i < n; i++, o += 4) out[i] = (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3];
      r.offset = o;
      return out;
    }`;

function arrayDecoder(field: FieldSchema, element: string, ctx: Ctx, compact: boolean, nullable: boolean): (r: Reader) => Value[] | null {
  const src = new Source();
  const nullArray = src.ref(() => new MalformedFrameError(`null array ${field.n}`));
  return src.build(`return function (r) {
    const n = r.arrayLength(${compact});
    if (n < 0) {
      if (!${nullable}) throw ${nullArray}();
      return null;
    }
    const out = new Array(n);
    ${element === 'int32' ? INT32_ELEMENTS : ''}
    for (let i = 0; i < n; i++) out[i] = ${decodeExpression(src, field, element, ctx, compact, nullable)};
    return out;
  };`);
}

interface TaggedField {
  name: string;
  tag: number;
  /** The field's bytes in a section entry (written into a Writer of their own, for their size). */
  entry: (v: Value) => TaggedEntry;
  decode: (r: Reader) => Value;
}

interface TaggedEntry {
  tag: number;
  data: Buffer;
}

function isDefaultTest(field: FieldSchema, version: number): (v: Value) => boolean {
  const d = defaultValue(field, version);
  if (Array.isArray(d)) return (v) => v === undefined || (Array.isArray(v) && v.length === 0);
  if (Buffer.isBuffer(d)) return (v) => v === undefined || (Buffer.isBuffer(v) && v.length === 0);
  // A default struct is a fresh object each time: no value is ever it.
  if (d !== null && typeof d === 'object') return (v) => v === undefined;
  return (v) => v === undefined || (!Array.isArray(v) && !Buffer.isBuffer(v) && v === d);
}

function taggedField(field: FieldSchema, ctx: Ctx, compact: boolean, nullable: boolean): TaggedField {
  const enc = new Source();
  const dec = new Source();
  const encode = enc.build<(w: Writer, v: Value) => void>(
    `return function (w, v) { ${encodeStatements(enc, field, field.t, 'v', ctx, compact, nullable)} };`,
  );
  const tag = field.tag!;
  return {
    name: field.n,
    tag,
    entry: (v) => {
      const tw = new Writer();
      encode(tw, v);
      return { tag, data: tw.toBuffer() };
    },
    decode: dec.build(`return function (r) { return ${decodeExpression(dec, field, field.t, ctx, compact, nullable)}; };`),
  };
}

/** The tagged-field section: only the fields that differ from their default, in tag order. */
function writeTagged(w: Writer, sent: TaggedEntry[] | null): void {
  if (sent === null) {
    w.uvarint(0);
    return;
  }
  sent.sort((a, b) => a.tag - b.tag);
  w.uvarint(sent.length);
  for (const t of sent) w.uvarint(t.tag).uvarint(t.data.length).raw(t.data);
}

/** The tagged-field section after the count: unknown tags are skipped, a known one is read from its own bytes only. */
function decodeTagged(r: Reader, s: Struct, count: number, byTag: ReadonlyMap<number, TaggedField>): void {
  for (let i = 0; i < count; i++) {
    const tag = r.uvarint();
    const size = r.uvarint();
    const data = r.raw(size);
    const t = byTag.get(tag);
    if (t) s[t.name] = t.decode(new Reader(data));
  }
}

/**
 * An absent (or not sent tagged) field's default, as an expression: the value itself when
 * immutable, else a fresh one per struct (a decoded message is the caller's to change).
 */
function defaultExpression(src: Source, field: FieldSchema, version: number): string {
  const d = defaultValue(field, version);
  if (d === null || typeof d !== 'object') return src.ref(d);
  return `${src.ref(() => defaultValue(field, version))}()`;
}

function buildStruct(fields: readonly FieldSchema[], ctx: Ctx): StructCodec {
  const { version, flexible } = ctx;
  const enc = new Source();
  const dec = new Source();
  const encodeBody: string[] = ['let v;'];
  const literal: string[] = [];
  const tagged: TaggedField[] = [];
  for (const f of fields) {
    if (!inRange(f.v, version)) {
      literal.push(`${key(f.n)}: ${defaultExpression(dec, f, version)}`);
      continue;
    }
    const compact = f.fv !== undefined ? inRange(f.fv, version) : flexible;
    const nullable = inRange(f.nv, version);
    if (flexible && inRange(f.tv, version)) {
      literal.push(`${key(f.n)}: ${defaultExpression(dec, f, version)}`);
      const t = taggedField(f, ctx, compact, nullable);
      tagged.push(t);
      // Encoded where it stands among the fields (a bad value throws where it always did),
      // written after them in the tagged-field section.
      encodeBody.push(`v = s[${key(f.n)}]; if (!${enc.ref(isDefaultTest(f, version))}(v)) (sent ??= []).push(${enc.ref(t.entry)}(v));`);
      continue;
    }
    literal.push(`${key(f.n)}: ${decodeExpression(dec, f, f.t, ctx, compact, nullable)}`);
    // A field left undefined is written as its default.
    encodeBody.push(`v = s[${key(f.n)}]; if (v === undefined) v = ${enc.ref(defaultValue(f, version))};`);
    encodeBody.push(encodeStatements(enc, f, f.t, 'v', ctx, compact, nullable));
  }
  if (tagged.length > 0) encodeBody.unshift('let sent = null;');
  if (flexible) encodeBody.push(tagged.length === 0 ? 'w.uvarint(0);' : `${enc.ref(writeTagged)}(w, sent);`);
  const byTag = new Map(tagged.map((t) => [t.tag, t] as const));
  // Object literal properties are evaluated in order: the fields are read in the schema's order.
  const decodeBody = [`const s = { ${literal.join(', ')} };`];
  if (flexible) decodeBody.push(`const count = r.uvarint(); if (count !== 0) ${dec.ref(decodeTagged)}(r, s, count, ${dec.ref(byTag)});`);
  decodeBody.push('return s;');
  return {
    encode: enc.build(`return function encode(w, s) {\n${encodeBody.join('\n')}\n};`),
    decode: dec.build(`return function decode(r) {\n${decodeBody.join('\n')}\n};`),
  };
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
  return codecFor(schema, version).decode(r) as T;
}

export function encode<T>(schema: MessageSchema, version: number, value: T, w: Writer = new Writer()): Writer {
  if (!supports(schema, version)) throw new Error(`${schema.name} v${version} is not a valid version`);
  codecFor(schema, version).encode(w, value as Struct);
  return w;
}
