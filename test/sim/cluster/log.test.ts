import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildBatch, makeModel, throwsKafka } from './helpers.js';
import { crc32c } from '../../../src/sim/cluster/log.js';

function setup() {
  const m = makeModel(3);
  m.createTopic({ name: 't', numPartitions: 2, replicationFactor: 3 });
  return m;
}

test('crc32c matches the standard check value', () => {
  assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
  // Eight bytes per step: any range (start, length mod 8) agrees with the byte-at-a-time CRC.
  const bytewise = (b: Uint8Array, start: number, end: number) => {
    let crc = 0xffffffff;
    for (let i = start; i < end; i++) {
      crc ^= b[i];
      for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0x82f63b78 : crc >>> 1;
    }
    return (crc ^ 0xffffffff) >>> 0;
  };
  const buf = Buffer.alloc(300);
  for (let i = 0; i < buf.length; i++) buf[i] = (i * 131 + 7) & 0xff;
  for (let start = 0; start < 9; start++)
    for (let end = start; end <= buf.length; end += 7)
      assert.equal(crc32c(buf, start, end), bytewise(buf, start, end), `[${start}, ${end})`);
});

test('append rewrites baseOffset, keeps the CRC valid, advances the end offset and size', () => {
  const m = setup();
  const b1 = buildBatch(['a', 'b', 'c'], 1000, 10, 999);
  const b2 = buildBatch(['d', 'e']);
  const original = Buffer.from(b1);
  assert.equal(m.append('t', 0, b1), 0);
  assert.deepEqual(b1, original, 'the caller buffer is not modified');
  assert.equal(m.append('t', 0, b2), 3);
  assert.deepEqual(m.logOffsets('t', 0), { logStartOffset: 0, logEndOffset: 5, highWatermark: 5 });
  assert.equal(m.sizeBytes('t', 0), b1.length + b2.length);
  assert.equal(m.sizeBytes('t', 1), 0);

  // two batches in one request
  const r = m.appendWithResult('t', 1, Buffer.concat([buildBatch(['x']), buildBatch(['y', 'z'])]));
  assert.deepEqual(r, { baseOffset: 0, logAppendTime: -1, logStartOffset: 0 });
  assert.equal(m.logOffsets('t', 1).logEndOffset, 3);

  const out = m.read('t', 0, 0, 1 << 20);
  assert.equal(out.highWatermark, 5);
  assert.equal(out.logStartOffset, 0);
  assert.equal(out.records.length, b1.length + b2.length);
  assert.equal(out.records.readBigInt64BE(0), 0n);
  assert.equal(out.records.readBigInt64BE(b1.length), 3n);
  // stored batches still pass CRC checks (baseOffset / leader epoch are outside the CRC)
  const first = out.records.subarray(0, b1.length);
  assert.equal(first.readUInt32BE(17), crc32c(first, 21, first.length));
  assert.equal(first.readInt32BE(12), 0, 'partitionLeaderEpoch = leader epoch');
});

test('read: batch containing the offset, maxBytes, at least one batch, out of range', () => {
  const m = setup();
  const b1 = buildBatch(['a', 'b', 'c']);
  const b2 = buildBatch(['d', 'e']);
  m.append('t', 0, b1);
  m.append('t', 0, b2);
  assert.equal(m.read('t', 0, 1, 1 << 20).records.length, b1.length + b2.length, 'offset 1 is inside batch 1');
  assert.equal(m.read('t', 0, 3, 1 << 20).records.length, b2.length);
  assert.equal(m.read('t', 0, 0, 1).records.length, b1.length, 'one whole batch even above maxBytes');
  assert.equal(m.read('t', 0, 0, b1.length + b2.length - 1).records.length, b1.length);
  assert.equal(m.read('t', 0, 5, 100).records.length, 0, 'at the end: empty');
  throwsKafka(
    () => m.read('t', 0, 6, 100),
    1,
    'Received request for offset 6 for partition t-0, but we only have log segments in the range 0 to 5.',
  );
  throwsKafka(() => m.read('t', 9, 0, 100), 3);
  throwsKafka(() => m.read('nope', 0, 0, 100), 3);
});

test('listOffset: latest, earliest, max timestamp, by timestamp', () => {
  const m = setup();
  assert.deepEqual(m.listOffset('t', 0, -1), { offset: 0, timestamp: -1 });
  assert.deepEqual(m.listOffset('t', 0, -3), { offset: -1, timestamp: -1 });
  m.append('t', 0, buildBatch(['a', 'b', 'c'], 1000, 10)); // offsets 0..2 at 1000, 1010, 1020
  m.append('t', 0, buildBatch(['d', 'e'], 5000, -100)); // offsets 3..4 at 5000, 4900
  assert.deepEqual(m.listOffset('t', 0, -1), { offset: 5, timestamp: -1 });
  assert.deepEqual(m.listOffset('t', 0, -2), { offset: 0, timestamp: -1 });
  assert.deepEqual(m.listOffset('t', 0, -3), { offset: 3, timestamp: 5000 });
  assert.deepEqual(m.listOffset('t', 0, 1005), { offset: 1, timestamp: 1010 });
  assert.deepEqual(m.listOffset('t', 0, 0), { offset: 0, timestamp: 1000 });
  assert.deepEqual(m.listOffset('t', 0, 4950), { offset: 3, timestamp: 5000 });
  assert.deepEqual(m.listOffset('t', 0, 6000), { offset: -1, timestamp: -1 });
  throwsKafka(() => m.listOffset('t', 0, -9), 42);
  throwsKafka(() => m.listOffset('x', 0, -1), 3);
});

test('corrupt input -> CORRUPT_MESSAGE (2), nothing appended', () => {
  const m = setup();
  const good = buildBatch(['a']);
  const badCrc = Buffer.from(good);
  badCrc[badCrc.length - 1] ^= 0xff;
  throwsKafka(() => m.append('t', 0, badCrc), 2, /^Record is corrupt \(stored crc = \d+, computed crc = \d+\)$/);
  throwsKafka(() => m.append('t', 0, Buffer.concat([good, good.subarray(0, 40)])), 2);
  throwsKafka(() => m.append('t', 0, good.subarray(0, 30)), 2);
  const tooLong = Buffer.from(good);
  tooLong.writeInt32BE(good.length, 8); // batchLength says more than there is
  throwsKafka(() => m.append('t', 0, tooLong), 2);
  const v1 = Buffer.from(good);
  v1.writeInt8(1, 16);
  throwsKafka(() => m.append('t', 0, v1), 2);
  throwsKafka(() => m.append('t', 0, Buffer.alloc(0)), 2);
  assert.equal(m.logOffsets('t', 0).logEndOffset, 0);
  assert.equal(m.sizeBytes('t', 0), 0);
  // CRC checking can be turned off
  const lax = makeModel(1, { verifyCrc: false });
  lax.createTopic({ name: 't' });
  assert.equal(lax.append('t', 0, badCrc), 0);
});

test('produce checks: leader, min.insync.replicas with acks=all, max.message.bytes', () => {
  const m = setup();
  const leader = m.getTopic('t')!.partitions[0].leader;
  throwsKafka(() => m.append('t', 0, buildBatch(['a']), { brokerId: (leader + 1) % 3 }), 6);
  assert.equal(m.append('t', 0, buildBatch(['a']), { brokerId: leader }), 0);
  m.incrementalAlterConfigs({ type: 2, name: 't' }, [{ name: 'min.insync.replicas', op: 0, value: '3' }]);
  m.stopBroker(2);
  throwsKafka(() => m.append('t', 0, buildBatch(['a'])), 19, /min\.isr requirement of 3 for partition t-0/);
  assert.equal(m.append('t', 0, buildBatch(['a']), { acks: 1 }), 1);
  m.incrementalAlterConfigs({ type: 2, name: 't' }, [{ name: 'max.message.bytes', op: 0, value: '50' }]);
  throwsKafka(() => m.append('t', 0, buildBatch(['a']), { acks: 1 }), 10, /exceeds the maximum configured size of 50/);
});

test('seedBytes adds size without data', () => {
  const m = setup();
  m.seedBytes('t', 1, 1_000_000);
  m.append('t', 1, buildBatch(['a']));
  assert.equal(m.sizeBytes('t', 1), 1_000_000 + buildBatch(['a']).length);
  assert.equal(m.logOffsets('t', 1).logEndOffset, 1);
  throwsKafka(() => m.seedBytes('t', 1, -1), 42);
  throwsKafka(() => m.seedBytes('t', 5, 1), 3);
});
