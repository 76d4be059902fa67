// An answer's bytes are freed when the gateway is done with them (src/kafka/wire/reader.ts):
// the socket chunks once the connection has consumed the message, the copy once it is decoded.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Reader, Writer } from '@platformatic/kafka';
import { WireReader } from '../../src/kafka/wire/reader.js';
import { decodeInSlices } from '../../src/kafka/wire/slices.js';

const CHUNK = 64 * 1024;

/** Socket chunks as Node hands them over: each the whole of its own memory. */
function chunks(n: number, fill = (i: number) => i + 1): Buffer[] {
  return Array.from({ length: n }, (_, i) => Buffer.allocUnsafeSlow(CHUNK).fill(fill(i)));
}

const microtask = () => new Promise<void>((resolve) => queueMicrotask(resolve));

describe('WireReader.fromClientReader', () => {
  it('copies a message of several chunks, frees the chunks after the parser call, and the copy on release()', async () => {
    const parts = chunks(3);
    const reader = Reader.from(Writer.create().append(parts[0]).append(parts[1]).append(parts[2]));
    reader.position = 10;
    const answer = WireReader.fromClientReader(reader);
    // The connection still reads the chunks' lengths when it consumes the message (same turn).
    assert.deepEqual(
      parts.map((p) => p.length),
      [CHUNK, CHUNK, CHUNK],
    );
    await microtask();
    assert.deepEqual(
      parts.map((p) => p.length),
      [0, 0, 0],
    );
    assert.equal(answer.pos, 10);
    assert.equal(answer.buf.length, 3 * CHUNK);
    assert.deepEqual([answer.buf[0], answer.buf[CHUNK], answer.buf[3 * CHUNK - 1]], [1, 2, 3]);
    answer.release();
    assert.equal(answer.buf.length, 0);
    assert.throws(() => answer.int32(), RangeError);
  });

  it('leaves chunks that hold bytes of other messages, and a message read in place from one chunk', async () => {
    // The message's first and last chunks are views into larger chunks (the message before it
    // ended in the first, the next one starts in the last).
    const [first, middle, last] = chunks(3);
    const reader = Reader.from(Writer.create().append(first.subarray(100)).append(middle).append(last.subarray(0, 200)));
    const answer = WireReader.fromClientReader(reader);
    await microtask();
    assert.equal(first.length, CHUNK);
    assert.equal(middle.length, 0);
    assert.equal(last.length, CHUNK);
    assert.equal(answer.buf.length, CHUNK - 100 + CHUNK + 200);
    answer.release();

    const [only] = chunks(1);
    const inPlace = WireReader.fromClientReader(Reader.from(Writer.create().append(only.subarray(8))));
    await microtask();
    inPlace.release();
    assert.equal(only.length, CHUNK);
    assert.equal(inPlace.buf.length, CHUNK - 8);
  });

  it('decodeInSlices releases the answer when the decode ends, decoded or failed', async () => {
    const make = () => WireReader.fromClientReader(Reader.from(Writer.create().append(chunks(2)[0]).append(chunks(2)[1])));
    const ok = make();
    assert.equal(
      await decodeInSlices(
        ok,
        (function* () {
          yield;
          return ok.int32();
        })(),
      ),
      0x01010101,
    );
    assert.equal(ok.buf.length, 0);
    const failed = make();
    await assert.rejects(
      decodeInSlices(
        failed,
        (function* (): Generator<void, number> {
          yield;
          throw new RangeError('malformed');
        })(),
      ),
      /malformed/,
    );
    assert.equal(failed.buf.length, 0);
  });
});
