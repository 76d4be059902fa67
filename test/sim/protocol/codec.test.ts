// Round trips of every simulated API's request and response, in every valid version,
// through the schema-driven codec: random values in, same values out. Fields a version
// does not have must come back as their defaults, and nothing may be left unread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Reader, Writer, MalformedFrameError } from '../../../src/sim/protocol/buffers.js';
import { decode, encode, defaultValue } from '../../../src/sim/protocol/codec.js';
import { ALL_SCHEMAS, RequestHeaderSchema, CreateTopicsRequestSchema } from '../../../src/sim/protocol/messages.generated.js';
import { inRange, type FieldSchema } from '../../../src/sim/protocol/schema.js';

let seed = 42;
function rnd(n: number): number {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed % n;
}

function sample(f: FieldSchema, t: string, version: number): unknown {
  if (inRange(f.nv, version) && rnd(4) === 0 && (t.startsWith('[]') || ['string', 'bytes', 'records', 'struct'].includes(t))) return null;
  if (t.startsWith('[]')) return Array.from({ length: rnd(3) }, () => sample({ ...f, nv: undefined }, t.slice(2), version));
  switch (t) {
    case 'bool':
      return rnd(2) === 1;
    case 'int8':
      return rnd(256) - 128;
    case 'int16':
      return rnd(65536) - 32768;
    case 'uint16':
      return rnd(65536);
    case 'int32':
      return rnd(2 ** 31) * (rnd(2) ? 1 : -1);
    case 'uint32':
      return rnd(2 ** 31) * 2;
    case 'int64':
      return BigInt(rnd(2 ** 31)) * BigInt(rnd(2 ** 31)) * (rnd(2) ? 1n : -1n);
    case 'float64':
      return rnd(1000) / 7;
    case 'uuid':
      return Buffer.from(String(rnd(1e9)).padStart(16, '0')).toString('base64url');
    case 'string':
      return 'héllo-' + 'x'.repeat(rnd(200));
    case 'bytes':
    case 'records':
      return Buffer.from('b'.repeat(rnd(300)));
    case 'struct':
      return sampleStruct(f.f ?? [], version);
    default:
      throw new Error(t);
  }
}

function sampleStruct(fields: readonly FieldSchema[], version: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f.n] = inRange(f.v, version) ? sample(f, f.t, version) : defaultValue(f, version);
  return out;
}

for (const schema of ALL_SCHEMAS) {
  test(`${schema.name} round-trips in every version ${schema.valid[0]}-${schema.valid[1]}`, () => {
    for (let v = schema.valid[0]; v <= schema.valid[1]; v++) {
      for (let i = 0; i < 5; i++) {
        const value = sampleStruct(schema.fields, v);
        const bytes = encode(schema, v, value).toBuffer();
        const r = new Reader(bytes);
        const back = decode(schema, v, r);
        assert.deepEqual(back, value, `${schema.name} v${v}`);
        assert.equal(r.remaining(), 0, `${schema.name} v${v} left bytes unread`);
      }
    }
  });
}

test('request header v1 keeps a classic nullable client id even though v2 is flexible', () => {
  for (const version of [1, 2]) {
    const bytes = encode(RequestHeaderSchema, version, {
      requestApiKey: 19,
      requestApiVersion: 7,
      correlationId: 9,
      clientId: 'gw',
    }).toBuffer();
    // INT16 length 2 then "gw", in both versions; v2 appends an empty tagged-field section.
    assert.deepEqual([...bytes.subarray(8, 12)], [0, 2, 0x67, 0x77]);
    assert.equal(bytes.length, version === 2 ? 13 : 12);
  }
});

test('compact strings and arrays use length + 1 as an unsigned varint', () => {
  const bytes = encode(CreateTopicsRequestSchema, 5, {
    topics: [{ name: 'ab', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
    timeoutMs: 1000,
    validateOnly: true,
  }).toBuffer();
  assert.equal(bytes[0], 2); // one topic
  assert.equal(bytes[1], 3); // "ab"
  assert.equal(bytes.subarray(2, 4).toString(), 'ab');
});

test('varints survive the 5-byte range and truncated input is a MalformedFrameError', () => {
  for (const n of [0, 1, 127, 128, 16383, 16384, 2 ** 31 - 1]) {
    const w = new Writer().uvarint(n);
    assert.equal(new Reader(w.toBuffer()).uvarint(), n);
  }
  for (const n of [0, -1, 1, -64, 64, -(2 ** 30)]) {
    assert.equal(new Reader(new Writer().varint(n).toBuffer()).varint(), n);
  }
  assert.throws(() => new Reader(Buffer.from([0x80, 0x80])).uvarint(), MalformedFrameError);
  assert.throws(() => new Reader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).uvarint(), MalformedFrameError);
  assert.throws(() => decode(CreateTopicsRequestSchema, 7, new Reader(Buffer.from([5, 3, 0x61]))), MalformedFrameError);
});

test('an array that claims more elements than bytes left is rejected before allocating', () => {
  const w = new Writer().int32(1_000_000_000);
  assert.throws(() => decode(CreateTopicsRequestSchema, 4, new Reader(w.toBuffer())), MalformedFrameError);
});
