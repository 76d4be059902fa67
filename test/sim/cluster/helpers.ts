import assert from 'node:assert/strict';
import { ClusterModel, type ClusterModelOptions } from '../../../src/sim/cluster/model.js';
import { KafkaError } from '../../../src/sim/cluster/errors.js';
import { writeBatchCrc } from '../../../src/sim/cluster/log.js';

export class ManualClock {
  constructor(public t = 1_700_000_000_000) {}
  now(): number {
    return this.t;
  }
}

export function makeModel(
  brokers: number | { id: number; rack: string | null }[] = 3,
  extra: Partial<ClusterModelOptions> = {},
): ClusterModel {
  const specs = typeof brokers === 'number' ? Array.from({ length: brokers }, (_, id) => ({ id, rack: null })) : brokers;
  let n = 0;
  return new ClusterModel({
    brokers: specs,
    clock: new ManualClock(),
    clusterId: 'test-cluster',
    uuidSource: () => {
      const b = Buffer.alloc(16);
      b.writeUInt32BE(++n, 12);
      return b;
    },
    ...extra,
  });
}

/** Asserts that fn throws a KafkaError with this code (and message, when given). */
export function throwsKafka(fn: () => unknown, code: number, message?: string | RegExp): KafkaError {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof KafkaError, `expected a KafkaError, got ${String(caught)}`);
  const err = caught;
  assert.equal(err.code, code, `code ${err.code} (${err.message})`);
  if (typeof message === 'string') assert.equal(err.message, message);
  else if (message) assert.match(err.message, message);
  return err;
}

function zigzagVarint(n: number | bigint): Buffer {
  let v = BigInt(n);
  v = v >= 0n ? v << 1n : (-v << 1n) - 1n;
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number((v & 0x7fn) | 0x80n));
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}

/** A valid, uncompressed record batch v2 with one record per value (timestamps base + i*step). */
export function buildBatch(values: string[], baseTimestamp = 1000, step = 10, baseOffset = 0): Buffer {
  const records = values.map((v, i) => {
    const value = Buffer.from(v);
    const body = Buffer.concat([
      Buffer.from([0]), // attributes
      zigzagVarint(i * step), // timestampDelta
      zigzagVarint(i), // offsetDelta
      zigzagVarint(-1), // key: null
      zigzagVarint(value.length),
      value,
      zigzagVarint(0), // headers
    ]);
    return Buffer.concat([zigzagVarint(body.length), body]);
  });
  const recs = Buffer.concat(records);
  const b = Buffer.alloc(61 + recs.length);
  b.writeBigInt64BE(BigInt(baseOffset), 0);
  b.writeInt32BE(b.length - 12, 8);
  b.writeInt32BE(-1, 12); // partitionLeaderEpoch
  b.writeInt8(2, 16); // magic
  b.writeInt16BE(0, 21); // attributes
  b.writeInt32BE(values.length - 1, 23); // lastOffsetDelta
  b.writeBigInt64BE(BigInt(baseTimestamp), 27);
  b.writeBigInt64BE(BigInt(Math.max(...values.map((_, i) => baseTimestamp + i * step))), 35); // maxTimestamp
  b.writeBigInt64BE(-1n, 43); // producerId
  b.writeInt16BE(-1, 51);
  b.writeInt32BE(-1, 53);
  b.writeInt32BE(values.length, 57);
  recs.copy(b, 61);
  return writeBatchCrc(b);
}
