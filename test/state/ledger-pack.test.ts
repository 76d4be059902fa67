// Compact ledger records: a topic's throttle ledger stays under the state topic's message
// bound however many partitions move, packs exactly, and older (plain) records still read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  computeReassignmentThrottles,
  reconcileThrottles,
  throttleDemandFor,
  type ThrottleLedger,
} from '../../src/domain/reassignment/index.js';
import { MESSAGE_MAX_BYTES } from '../../src/state/layout.js';
import {
  LEDGER_PACKED_VERSION,
  LEDGER_PACK_MIN,
  RECORD_VERSION,
  decodeValue,
  encodeValue,
  keyOf,
  packReplicaList,
  unpackReplicaList,
  type LedgerRecord,
} from '../../src/state/records.js';

const BROKERS = 12;
const record = (topic: string, t: ThrottleLedger['topics'][string]): LedgerRecord => ({
  kind: 'ledger',
  v: RECORD_VERSION,
  id: `topic/${topic}`,
  topic: t,
  updatedAt: 1,
});
const roundTrip = (r: LedgerRecord) => decodeValue(keyOf(r), encodeValue(r));

describe('ledger record of a 50,000-partition topic', () => {
  it('fits one state message (≤ 900 KB) and reads back exactly what was written', () => {
    const partitions = 50_000;
    // Every partition moves from 3 brokers to 3 others: 150,000 leader and 150,000 follower entries.
    const proposed = Array.from({ length: partitions }, (_, p) => ({
      topic: 'big',
      partition: p,
      currentReplicas: [p % BROKERS, (p + 1) % BROKERS, (p + 2) % BROKERS],
      targetReplicas: [(p + 3) % BROKERS, (p + 4) % BROKERS, (p + 5) % BROKERS],
    }));
    const demand = throttleDemandFor(computeReassignmentThrottles([], proposed), 1_000_000);
    // Someone else had throttled every leader replica before: the prior value is as big.
    const prior = demand.topics.big.leader as readonly string[];
    const priorValue = [...prior].sort().join(',');
    const plan = reconcileThrottles(
      { topics: { big: { leader: priorValue.split(',').slice(0, 100_000).sort().join(','), follower: null } }, brokers: {} },
      demand,
      { topics: {}, brokers: {} },
    );
    const ledger = plan.ledgerBeforeOps.topics.big;
    assert.ok(ledger.follower!.added.length === 150_000);
    const r = record('big', ledger);
    const plainBytes = Buffer.byteLength(JSON.stringify(r));
    const stored = encodeValue(r);
    const bytes = Buffer.byteLength(stored);
    assert.ok(plainBytes > 1024 * 1024, `plain would be ${plainBytes} bytes (over Kafka's 1 MB)`);
    assert.ok(bytes <= MESSAGE_MAX_BYTES, `stored ${bytes} bytes`);
    console.log(`50,000-partition topic ledger: ${plainBytes} bytes plain, ${bytes} bytes stored`);
    assert.equal(JSON.parse(stored).v, LEDGER_PACKED_VERSION);
    const back = roundTrip(r) as LedgerRecord;
    assert.deepEqual(back.topic, r.topic);
    assert.equal(back.v, RECORD_VERSION);
  });

  it('packs a large canonical prior value exactly (and only when it comes back byte for byte)', () => {
    const entries = Array.from({ length: 30_000 }, (_, p) => `${p}:${p % BROKERS}`).sort();
    const prior = entries.join(',');
    const r = record('t', { leader: { prior, added: [] } });
    const stored = encodeValue(r);
    assert.ok(Buffer.byteLength(stored) < prior.length / 3, `packed: ${Buffer.byteLength(stored)} of ${prior.length}`);
    assert.deepEqual((roundTrip(r) as LedgerRecord).topic, r.topic);
    // Not Kafka's format (spaces, unsorted): kept verbatim.
    const odd = record('t', { leader: { prior: entries.join(', '), added: [] } });
    assert.equal(encodeValue(odd), JSON.stringify(odd));
    const unsorted = record('t', { leader: { prior: [...entries].reverse().join(','), added: [] } });
    assert.equal(encodeValue(unsorted), JSON.stringify(unsorted));
  });
});

describe('compatibility', () => {
  it('small lists, rates and non-canonical lists stay plain v2 records', () => {
    const small = record('t', { leader: { prior: null, added: ['0:1', '1:2'] } });
    assert.equal(encodeValue(small), JSON.stringify(small));
    const broker: LedgerRecord = {
      kind: 'ledger',
      v: RECORD_VERSION,
      id: 'broker/1',
      broker: { leaderRate: { prior: null, values: ['10'] } },
      updatedAt: 1,
    };
    assert.equal(encodeValue(broker), JSON.stringify(broker));
    const many = Array.from({ length: LEDGER_PACK_MIN * 2 }, (_, p) => `${p}:1`);
    const unsorted = record('t', { leader: { prior: null, added: many } }); // numeric order, not string order
    assert.equal(encodeValue(unsorted), JSON.stringify(unsorted));
    const all = record('t', { leader: { prior: null, added: ['*'] } });
    assert.equal(encodeValue(all), JSON.stringify(all));
  });

  it('a plain record written by an older gateway reads as before', () => {
    const added = Array.from({ length: 2000 }, (_, p) => `${p}:3`).sort();
    const old = { kind: 'ledger', v: 1, id: 'topic/t', topic: { follower: { prior: '0:9', added } }, updatedAt: 5 };
    assert.deepEqual(decodeValue('ledger/topic/t', JSON.stringify(old)), old);
  });

  it('a packed record this version cannot decode is left alone (undefined), not misread', () => {
    const bad = {
      kind: 'ledger',
      v: LEDGER_PACKED_VERSION,
      id: 'topic/t',
      topic: { leader: { prior: null, addedPacked: { '1': 'z??' } } },
      updatedAt: 1,
    };
    assert.equal(decodeValue('ledger/topic/t', JSON.stringify(bad)), undefined);
    assert.equal(decodeValue('ledger/topic/t', JSON.stringify({ ...bad, v: LEDGER_PACKED_VERSION + 1 })), undefined);
  });
});

it('packReplicaList/unpackReplicaList round-trip any canonical list (bitmap or deltas per broker)', () => {
  fc.assert(
    fc.property(fc.uniqueArray(fc.tuple(fc.nat(5000), fc.nat(20)).map(([p, b]) => `${p}:${b}`)), (list) => {
      const sorted = [...list].sort();
      const packed = packReplicaList(sorted);
      assert.ok(packed);
      assert.deepEqual(unpackReplicaList(packed), sorted);
    }),
  );
  // Dense brokers choose the bitmap, sparse ones the deltas.
  const dense = Array.from({ length: 3000 }, (_, p) => `${p}:1`)
    .concat(['4000000:2', '9:2'])
    .sort();
  const packed = packReplicaList(dense)!;
  assert.ok(packed['1'].startsWith('b') && packed['2'].startsWith('d'));
  assert.deepEqual(unpackReplicaList(packed), dense);
  assert.equal(packReplicaList(['07:1']), undefined);
  assert.equal(packReplicaList(['2:1', '10:1']), undefined); // not sorted as strings
});

it('packReplicaList accepts exactly the canonical lists (`p:b` decimals without leading zeros, sorted as strings, unique)', () => {
  // The grammar packing relies on, as a regex: the packer parses by hand and must agree with it.
  const canonical = /^(0|[1-9]\d*):(0|[1-9]\d*)$/;
  const isCanonicalList = (list: string[]) =>
    list.every(
      (e, i) =>
        (i === 0 || list[i - 1] < e) &&
        canonical.test(e) &&
        Number(e.split(':')[0]) <= 0x7fffffff &&
        Number.isSafeInteger(Number(e.split(':')[1])),
    );
  const entry = fc.oneof(
    fc.tuple(fc.nat(3000), fc.nat(20)).map(([p, b]) => `${p}:${b}`),
    fc.stringMatching(/^[0-9:]{0,6}$/),
    fc.constantFrom(
      '01:1',
      '1:01',
      ':1',
      '1:',
      '1:2:3',
      'a:1',
      '1:b',
      ' 1:1',
      '2147483647:1',
      '2147483648:1',
      '1:9007199254740991',
      '1:9007199254740992',
      '1:99999999999999999',
    ),
  );
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 8 }), fc.boolean(), (raw, sort) => {
      const list = sort ? [...raw].sort() : raw;
      const packed = packReplicaList(list);
      assert.equal(packed !== undefined, isCanonicalList(list), JSON.stringify(list));
      if (packed) assert.deepEqual(unpackReplicaList(packed), list);
    }),
    { numRuns: 2000 },
  );
});

/** packReplicaList before its deltas were written by hand (a string per entry): what older gateways read. */
function referencePack(entries: readonly string[]): Record<string, string> | undefined {
  const byBroker = new Map<number, number[]>();
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (i > 0 && !(entries[i - 1] < e)) return undefined;
    const m = /^(0|[1-9]\d*):(0|[1-9]\d*)$/.exec(e);
    if (!m) return undefined;
    const partition = Number(m[1]);
    const broker = Number(m[2]);
    if (!Number.isSafeInteger(broker) || partition > 0x7fffffff) return undefined;
    (byBroker.get(broker) ?? byBroker.set(broker, []).get(broker)!).push(partition);
  }
  const out: Record<string, string> = {};
  for (const [broker, list] of [...byBroker].sort((a, b) => a[0] - b[0])) {
    const ps = Uint32Array.from(list).sort();
    let prev = -1;
    const deltas = [...ps]
      .map((p) => {
        const d = (p - prev - 1).toString(36);
        prev = p;
        return d;
      })
      .join('.');
    const max = ps[ps.length - 1];
    if (Math.ceil((Math.ceil((max + 1) / 8) * 4) / 3) < deltas.length) {
      const bits = Buffer.alloc(Math.ceil((max + 1) / 8));
      for (const p of ps) bits[p >> 3] |= 1 << (p & 7);
      out[String(broker)] = `b${bits.toString('base64')}`;
    } else out[String(broker)] = `d${deltas}`;
  }
  return out;
}

it('packs byte for byte as before (older gateways read these records), gaps of every base-36 length included', () => {
  const partition = fc.oneof(fc.nat(5000), fc.integer({ min: 0, max: 0x7fffffff }));
  fc.assert(
    fc.property(
      fc.uniqueArray(
        fc.tuple(partition, fc.oneof(fc.nat(20), fc.constant(2 ** 40))).map(([p, b]) => `${p}:${b}`),
        { maxLength: 300 },
      ),
      (list) => {
        const sorted = [...list].sort();
        assert.deepEqual(packReplicaList(sorted), referencePack(sorted));
      },
    ),
    { numRuns: 500 },
  );
  const wide = ['0:1', '35:1', '72:1', '1368:1', '48024:1', '1727640:1', '62193816:1', '2147483647:1'].sort();
  assert.ok(packReplicaList(wide)?.['1']?.startsWith('d'));
  assert.deepEqual(packReplicaList(wide), referencePack(wide));
});

it('a packed list with a gap that is not base 36 is refused (the record is not misread)', () => {
  assert.throws(() => unpackReplicaList({ '1': 'd0.!' }), RangeError);
  assert.throws(() => unpackReplicaList({ '1': 'd0..1' }), RangeError);
  assert.deepEqual(unpackReplicaList({ '1': 'd0.z.10' }), ['0:1', '36:1', '73:1']);
});
