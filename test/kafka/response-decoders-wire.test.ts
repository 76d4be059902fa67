// The gateway decodes DescribeLogDirs v4, ListPartitionReassignments v0, AlterPartitionReassignments v0, Metadata v12 and Produce v11 answers itself
// (src/kafka/apis, src/kafka/wire/reader.ts). These tests encode answers independently, with
// the simulator's schema-driven codec (src/sim/protocol, from Kafka's message specs), and check
// that our decoders read every field the gateway uses as @platformatic/kafka's parsers read the
// same bytes, then the request path end to end over a stub connection that hands the parser a
// chunked buffer (response-decoders-fixtures.ts).
// The wire reader under every decoder, and inSlices, which runs their steps.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MalformedResponseError, WireReader } from '../../src/kafka/wire/reader.js';
import { drain } from '../../src/domain/steps.js';
import { inSlices } from '../../src/kafka/wire/slices.js';

describe('inSlices', () => {
  it('lets the event loop turn between slices, and returns what the steps return', async () => {
    const turns: string[] = [];
    function* steps() {
      for (let i = 0; i < 3; i++) {
        turns.push(`step ${i}`);
        yield;
      }
      return 'done';
    }
    setImmediate(() => turns.push('other task'));
    assert.equal(await inSlices(steps(), 0), 'done');
    assert.deepEqual(turns.slice(0, 2), ['step 0', 'other task']);
    assert.equal(drain(steps()), 'done');
  });
});

describe('WireReader', () => {
  it('reads unsigned varints of 1 to 5 bytes and refuses a sixth', () => {
    for (const v of [0, 1, 127, 128, 300, 16383, 16384, 2 ** 21, 2 ** 28 - 1, 2 ** 28, 2 ** 31 - 1, 2 ** 32 - 1]) {
      const w = new (class {
        bytes: number[] = [];
      })();
      let x = v;
      while (x >= 0x80) {
        w.bytes.push((x % 128) | 0x80);
        x = Math.floor(x / 128);
      }
      w.bytes.push(x);
      const r = new WireReader(Buffer.from(w.bytes));
      assert.equal(r.uvarint(), v);
      assert.equal(r.pos, w.bytes.length);
    }
    assert.throws(() => new WireReader(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01])).uvarint(), MalformedResponseError);
  });

  it('refuses a string or an INT32 array longer than what is left', () => {
    assert.throws(() => new WireReader(Buffer.from([5, 0x61, 0x62])).compactString(), MalformedResponseError);
    assert.equal(new WireReader(Buffer.from([4, 0x61, 0x62, 0x63])).compactString(), 'abc');
    assert.throws(() => new WireReader(Buffer.from([3, 0, 0, 0, 1, 0, 0])).int32Array(), MalformedResponseError);
    assert.deepEqual(new WireReader(Buffer.from([3, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff])).int32Array(), [1, -1]);
  });
});
