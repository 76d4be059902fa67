// The compiled codec (src/sim/protocol/codec.ts) against the codec it replaced, kept as
// ./codec-reference.ts: for every schema in ALL_SCHEMAS at every valid version, random values
// generated from the schema must encode to the same bytes, and any bytes (those, and those
// bytes damaged) must decode to the same value with the same bytes consumed, or fail with the
// same error. Values may leave fields out (defaults), be null where nullable, give tagged
// fields their default (then not sent), give int64 as number or bigint, and, in the misuse
// property, be the wrong thing (null where not nullable, integers out of range, fractions, NaN,
// strings for numbers...): then both must throw the same error, or write the same bytes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Reader, Writer } from '../../../src/sim/protocol/buffers.js';
import { decode, defaultValue, encode } from '../../../src/sim/protocol/codec.js';
import { ALL_SCHEMAS, RequestHeaderSchema, ResponseHeaderSchema } from '../../../src/sim/protocol/messages.generated.js';
import { inRange, type FieldSchema, type MessageSchema } from '../../../src/sim/protocol/schema.js';
import * as ref from './codec-reference.js';

const RUNS = Number(process.env.CODEC_IDENTITY_RUNS ?? 25);

// ---------------------------------------------------------------- values from the schema

const INT_RANGES: Record<string, [number, number]> = {
  int8: [-0x80, 0x7f],
  int16: [-0x8000, 0x7fff],
  uint16: [0, 0xffff],
  int32: [-0x80000000, 0x7fffffff],
  uint32: [0, 0xffffffff],
};

const uuid = fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.from(b).toString('base64url'));
const string = fc.oneof(
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
  fc.string({ unit: 'binary', maxLength: 6 }), // lone surrogates and astral chars included
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  // Around the 1-byte compact length prefix (127 bytes) and with a non-ASCII char somewhere.
  fc.tuple(fc.integer({ min: 120, max: 135 }), fc.boolean()).map(([n, wide]) => 'k'.repeat(n) + (wide ? 'é' : '')),
);
const int64 = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }), // wraps to 64 bits, as it always did
  fc.maxSafeInteger(),
  fc.integer(),
  fc.constantFrom(-1, 0, 2 ** 32, -(2 ** 32), 2 ** 53, 2 ** 60, -(2 ** 63), 2 ** 63),
);
const bytes = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b));

function primitive(t: string): fc.Arbitrary<unknown> {
  const range = INT_RANGES[t];
  if (range) return fc.integer({ min: range[0], max: range[1] });
  switch (t) {
    case 'bool':
      return fc.boolean();
    case 'int64':
      return int64;
    case 'float64':
      return fc.double();
    case 'uuid':
      return uuid;
    case 'string':
      return string;
    case 'bytes':
    case 'records':
      return bytes;
    default:
      throw new Error(`no arbitrary for ${t}`);
  }
}

/** A value of type `t` (the field's, or its array's element type), never null or undefined. */
function valueOf(f: FieldSchema, t: string, version: number): fc.Arbitrary<unknown> {
  if (t.startsWith('[]')) return fc.array(valueOf(f, t.slice(2), version), { maxLength: 3 });
  if (t === 'struct') return structOf(f.f ?? [], version);
  return primitive(t);
}

const structs = new Map<readonly FieldSchema[], Map<number, fc.Arbitrary<Record<string, unknown>>>>();

function structOf(fields: readonly FieldSchema[], version: number): fc.Arbitrary<Record<string, unknown>> {
  let byVersion = structs.get(fields);
  if (!byVersion) structs.set(fields, (byVersion = new Map()));
  let arb = byVersion.get(version);
  if (!arb) {
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const f of fields) {
      const value = valueOf(f, f.t, version);
      const nullable = inRange(f.nv, version) || f.t === 'records';
      model[f.n] = fc.oneof(
        { arbitrary: value, weight: 6 },
        { arbitrary: fc.constant(undefined), weight: 1 }, // left out: its default is written
        // Its default given explicitly (a tagged field's is then not sent).
        { arbitrary: fc.constant(null).map(() => defaultValue(f, version)), weight: 1 },
        ...(nullable ? [{ arbitrary: fc.constant(null), weight: 1 }] : []),
      );
    }
    arb = fc.record(model, { requiredKeys: [] });
    byVersion.set(version, arb);
  }
  return arb;
}

// ---------------------------------------------------------------- random schemas

// Schemas Kafka does not have, to reach what the real ones do not: tags out of schema order,
// nullable non-array structs at any depth, defaults of every type, fields appearing and going
// away between versions, a field-level flexible override, names that need quoting.
const PRIMITIVES = ['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'uuid', 'string', 'bytes', 'records'];
const NULLABLE_TYPES = new Set(['string', 'bytes', 'records', 'struct']);

function rangeWithin(max: number): fc.Arbitrary<[number, number]> {
  return fc
    .tuple(fc.integer({ min: 0, max }), fc.integer({ min: 0, max }), fc.boolean())
    .map(([a, b, open]) => [Math.min(a, b), open ? 32767 : Math.max(a, b)]);
}

function defaultFor(t: string): fc.Arbitrary<string | undefined> {
  const none = fc.constant(undefined);
  if (t.startsWith('[]')) return fc.oneof(none, fc.constant('null'));
  const range = INT_RANGES[t];
  if (range) return fc.oneof(none, fc.integer({ min: range[0], max: range[1] }).map(String));
  switch (t) {
    case 'bool':
      return fc.oneof(none, fc.constantFrom('true', 'false'));
    case 'int64':
      return fc.oneof(none, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map(String));
    case 'float64':
      return fc.oneof(none, fc.constantFrom('0', '1.5', '-2'));
    case 'string':
      return fc.oneof(none, fc.constant('null'), fc.string({ unit: 'grapheme-ascii', maxLength: 4 }));
    case 'bytes':
    case 'struct':
      return fc.oneof(none, fc.constant('null'));
    default:
      return none;
  }
}

function fieldsOf(maxVersion: number, depth: number): fc.Arbitrary<FieldSchema[]> {
  const type =
    depth > 0
      ? fc.oneof(
          fc.constantFrom(...PRIMITIVES),
          fc.constantFrom(...PRIMITIVES).map((t) => `[]${t}`),
          fc.constantFrom('struct', '[]struct'),
        )
      : fc.oneof(
          fc.constantFrom(...PRIMITIVES),
          fc.constantFrom(...PRIMITIVES).map((t) => `[]${t}`),
        );
  const field = type.chain((t) =>
    fc.record({
      t: fc.constant(t),
      v: rangeWithin(maxVersion),
      nv: NULLABLE_TYPES.has(t) || t.startsWith('[]') ? fc.option(rangeWithin(maxVersion), { nil: undefined }) : fc.constant(undefined),
      tv: fc.option(rangeWithin(maxVersion), { nil: undefined, freq: 3 }),
      tag: fc.integer({ min: 0, max: 200 }),
      fv: fc.option(fc.option(rangeWithin(maxVersion), { nil: null }), { nil: undefined, freq: 6 }),
      d: defaultFor(t),
      f: t.endsWith('struct') ? fieldsOf(maxVersion, depth - 1) : fc.constant(undefined),
    }),
  );
  return fc.array(field, { maxLength: 5 }).map((fs) => {
    const tags = new Set<number>();
    return fs.map((f, i): FieldSchema => {
      // Tags are unique within a struct; a field tagged in some versions is in them.
      const tagged = f.tv !== undefined && !tags.has(f.tag);
      if (tagged) tags.add(f.tag);
      const out: FieldSchema = { n: i === 3 ? `we"ird\\name${i}` : `f${i}`, t: f.t, v: f.v };
      if (f.nv) out.nv = f.nv;
      if (tagged) {
        out.tv = f.tv;
        out.tag = f.tag;
        out.v = [Math.min(f.v[0], f.tv![0]), 32767];
      }
      if (f.fv !== undefined) out.fv = f.fv;
      if (f.d !== undefined) out.d = f.d;
      if (f.f) out.f = f.f;
      return out;
    });
  });
}

const randomSchema: fc.Arbitrary<MessageSchema> = fc.integer({ min: 0, max: 3 }).chain((maxVersion) =>
  fc.record({
    name: fc.constant('RandomMessage'),
    apiKey: fc.constant(999),
    valid: fc.constant([0, maxVersion] as const),
    flexible: fc.option(
      fc.integer({ min: 0, max: maxVersion + 1 }).map((k) => [k, 32767] as const),
      { nil: null },
    ),
    fields: fieldsOf(maxVersion, 2),
  }),
);

// ---------------------------------------------------------------- misuse: wrong values

function wrongFor(t: string): unknown[] {
  const range = INT_RANGES[t];
  if (range) return [range[1] + 1, range[0] - 1, 1.5, -0.5, NaN, '7', null];
  switch (t) {
    case 'bool':
      return ['yes', 0, null];
    case 'int64':
      return [1.5, NaN, Infinity, '12', 2 ** 64, null];
    case 'float64':
      return ['2.5', null];
    case 'uuid':
      return ['short', 7, null];
    case 'string':
      return [7, null];
    case 'bytes':
      return ['abc', null];
    case 'records':
      return ['abc'];
    case 'struct':
      return [null, 7];
    default:
      if (!t.startsWith('[]')) return [null];
      // Null, not an array, a null or undefined element, a wrong element.
      return [null, 7, [null], [undefined], ...wrongFor(t.slice(2)).map((x) => [x])];
  }
}

/** Like structOf, with a small chance per field of a value of the wrong kind. */
function misusedStructOf(fields: readonly FieldSchema[], version: number): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of fields) {
    const good =
      f.t === 'struct'
        ? misusedStructOf(f.f ?? [], version)
        : f.t === '[]struct'
          ? fc.array(misusedStructOf(f.f ?? [], version), { maxLength: 2 })
          : valueOf(f, f.t, version);
    model[f.n] = fc.oneof({ arbitrary: good, weight: 8 }, { arbitrary: fc.constantFrom(...wrongFor(f.t)), weight: 1 });
  }
  return fc.record(model, { requiredKeys: [] });
}

// ---------------------------------------------------------------- comparing outcomes

type Outcome = { ok: true; value: unknown; offset?: number } | { ok: false; error: string };

function outcome(f: () => { value: unknown; offset?: number }): Outcome {
  try {
    return { ok: true, ...f() };
  } catch (err) {
    const e = err as Error;
    // A TypeError's message is not compared: the reference's came from the engine about its
    // own code ("arr.includes is not a function" for a struct array that is not an array).
    return { ok: false, error: e instanceof TypeError ? 'TypeError' : `${e?.constructor?.name}: ${e?.message}` };
  }
}

const encodedRef = (schema: MessageSchema, version: number, value: unknown) =>
  outcome(() => ({ value: ref.encode(schema, version, value).toBuffer() }));
const encodedNew = (schema: MessageSchema, version: number, value: unknown) =>
  outcome(() => ({ value: encode(schema, version, value).toBuffer() }));

function decodedRef(schema: MessageSchema, version: number, bytes: Buffer): Outcome {
  return outcome(() => {
    const r = new ref.Reader(bytes);
    return { value: ref.decode(schema, version, r), offset: r.offset };
  });
}
function decodedNew(schema: MessageSchema, version: number, bytes: Buffer): Outcome {
  return outcome(() => {
    const r = new Reader(bytes);
    return { value: decode(schema, version, r), offset: r.offset };
  });
}

/** Bytes decoded by both codecs: same value and offset, or the same error. */
function sameDecoding(schema: MessageSchema, version: number, bytes: Buffer): void {
  assert.deepStrictEqual(
    decodedNew(schema, version, bytes),
    decodedRef(schema, version, bytes),
    `${schema.name} v${version} decoding ${bytes.toString('hex')}`,
  );
}

/** The bytes damaged: cut short, one byte changed, or a byte inserted. */
const damage = fc.oneof(
  fc.record({ cut: fc.nat() }),
  fc.record({ at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
  fc.record({ insert: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
);

function damaged(bytes: Buffer, d: { cut?: number; at?: number; insert?: number; byte?: number }): Buffer {
  if (bytes.length === 0) return Buffer.from([d.byte ?? 0xff]);
  if (d.cut !== undefined) return bytes.subarray(0, d.cut % bytes.length);
  const out = Buffer.from(bytes);
  if (d.at !== undefined) {
    out[d.at % out.length] = d.byte!;
    return out;
  }
  const i = d.insert! % (bytes.length + 1);
  return Buffer.concat([bytes.subarray(0, i), Buffer.from([d.byte!]), bytes.subarray(i)]);
}

const everyVersion = (schema: MessageSchema): number[] =>
  Array.from({ length: schema.valid[1] - schema.valid[0] + 1 }, (_, i) => schema.valid[0] + i);

// ---------------------------------------------------------------- properties

describe('the compiled codec writes and reads exactly what the reference codec does', () => {
  for (const schema of [RequestHeaderSchema, ResponseHeaderSchema, ...ALL_SCHEMAS]) {
    it(`${schema.name}, versions ${schema.valid[0]}-${schema.valid[1]}`, () => {
      for (const version of everyVersion(schema)) {
        fc.assert(
          fc.property(structOf(schema.fields, version), damage, (value, d) => {
            const expected = encodedRef(schema, version, value);
            assert.deepStrictEqual(encodedNew(schema, version, value), expected, `${schema.name} v${version}`);
            if (!expected.ok) return;
            const bytes = expected.value as Buffer;
            sameDecoding(schema, version, bytes);
            sameDecoding(schema, version, damaged(bytes, d));
          }),
          { numRuns: RUNS },
        );
      }
    });
  }
});

describe('random schemas: the compiled codec writes and reads exactly what the reference codec does', () => {
  it('every version of each', () => {
    fc.assert(
      fc.property(
        randomSchema
          .chain((schema) => fc.tuple(fc.constant(schema), fc.integer({ min: schema.valid[0], max: schema.valid[1] })))
          .chain(([schema, version]) =>
            fc.tuple(
              fc.constant(schema),
              fc.constant(version),
              fc.array(structOf(schema.fields, version), { minLength: 1, maxLength: 4 }),
              damage,
            ),
          ),
        ([schema, version, values, d]) => {
          for (const value of values) {
            const expected = encodedRef(schema, version, value);
            assert.deepStrictEqual(encodedNew(schema, version, value), expected, `v${version} of ${JSON.stringify(schema)}`);
            if (!expected.ok) continue;
            sameDecoding(schema, version, expected.value as Buffer);
            sameDecoding(schema, version, damaged(expected.value as Buffer, d));
          }
        },
      ),
      { numRuns: RUNS * 20 },
    );
  });
});

describe('given wrong values, the compiled codec throws what the reference throws (or writes what it writes)', () => {
  for (const schema of ALL_SCHEMAS) {
    it(`${schema.name}, versions ${schema.valid[0]}-${schema.valid[1]}`, () => {
      for (const version of everyVersion(schema)) {
        fc.assert(
          fc.property(misusedStructOf(schema.fields, version), (value) => {
            assert.deepStrictEqual(encodedNew(schema, version, value), encodedRef(schema, version, value), `${schema.name} v${version}`);
          }),
          { numRuns: Math.ceil(RUNS / 2) },
        );
      }
    });
  }
});

describe('the reference comparison can fail', () => {
  it('a one-byte difference in the bytes written is seen', () => {
    const schema = ALL_SCHEMAS.find((s) => s.name === 'ListPartitionReassignmentsResponse')!;
    const value = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 1, replicas: [1], addingReplicas: [], removingReplicas: [] }] }],
    };
    const expected = encodedRef(schema, 0, value);
    const other = encodedRef(schema, 0, { ...value, throttleTimeMs: 1 });
    assert.throws(() => assert.deepStrictEqual(other, expected));
    assert.deepStrictEqual(encodedNew(schema, 0, value), expected);
  });

  it('a decoded value that differs from the reference only in an int64 being a number is seen', () => {
    const schema = ALL_SCHEMAS.find((s) => s.name === 'DescribeLogDirsResponse')!;
    const bytes = encode(schema, 4, {
      throttleTimeMs: 0,
      errorCode: 0,
      results: [
        {
          errorCode: 0,
          logDir: '/d',
          topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 5, offsetLag: 0n, isFutureKey: false }] }],
        },
      ],
    }).toBuffer();
    const expected = decodedRef(schema, 4, bytes);
    assert.equal((expected as { value: any }).value.results[0].topics[0].partitions[0].partitionSize, 5n);
    const asNumber = structuredClone(expected) as { value: any };
    asNumber.value.results[0].topics[0].partitions[0].partitionSize = 5;
    assert.throws(() => assert.deepStrictEqual(asNumber, expected));
    sameDecoding(schema, 4, bytes);
  });
});

describe('Writer and Reader at the edges the codec relies on', () => {
  it('int64 from a number writes the bytes of the same bigint', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), (n) => {
        assert.deepStrictEqual(new Writer().int64Of(n).toBuffer(), new ref.Writer().int64(BigInt(n)).toBuffer());
      }),
    );
  });

  it('int64 from a bigint writes what writeBigInt64BE writes, and any 8 bytes read back as readBigInt64BE reads them', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
        fc.constantFrom(
          0n,
          -1n,
          2n ** 53n - 1n,
          2n ** 53n,
          2n ** 53n + 1n,
          -(2n ** 53n) + 1n,
          -(2n ** 53n),
          -(2n ** 53n) - 1n,
          2n ** 63n - 1n,
          -(2n ** 63n),
        ),
        (big, edge) => {
          for (const v of [big, edge, big >> 11n]) {
            const bytes = new Writer().int64Of(v).toBuffer();
            assert.deepStrictEqual(bytes, new ref.Writer().int64(v).toBuffer());
            assert.equal(new Reader(bytes).int64(), bytes.readBigInt64BE(0));
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('strings write the bytes Buffer.from writes, whatever their chars and length', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'binary', maxLength: 300 }), fc.string({ unit: 'grapheme-ascii', maxLength: 5000 })),
        fc.boolean(),
        (s, compact) => {
          assert.deepStrictEqual(new Writer().string(s, compact).toBuffer(), new ref.Writer().string(s, compact).toBuffer());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("decoded values are the caller's", () => {
  it('a default decoded for an absent field is a fresh object in every struct', () => {
    // offlineReplicas is absent from Metadata v4 answers: each partition gets its own [].
    const schema = ALL_SCHEMAS.find((x) => x.name === 'MetadataResponse')!;
    const partition = { errorCode: 0, partitionIndex: 0, leaderId: 1, replicaNodes: [1], isrNodes: [1] };
    const bytes = encode(schema, 4, {
      brokers: [],
      topics: [{ errorCode: 0, name: 't', isInternal: false, partitions: [partition, { ...partition, partitionIndex: 1 }] }],
    }).toBuffer();
    const a = decode<any>(schema, 4, new Reader(bytes));
    const [p0, p1] = a.topics[0].partitions;
    assert.deepStrictEqual(p0.offlineReplicas, []);
    assert.notEqual(p0.offlineReplicas, p1.offlineReplicas);
    assert.notEqual(decode<any>(schema, 4, new Reader(bytes)).topics[0].partitions[0].offlineReplicas, p0.offlineReplicas);
  });
});
