// releaseNow frees what it is given only when nothing else can be in the same memory.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RELEASE_MIN_BYTES, releaseNow } from '../src/release-memory.js';

const arrayBuffers = (): number => process.memoryUsage().arrayBuffers;

describe('releaseNow', () => {
  it('frees a Buffer that is the whole of its memory, at once', () => {
    const b = Buffer.allocUnsafeSlow(4 << 20).fill(7);
    const before = arrayBuffers();
    releaseNow(b);
    assert.equal(b.length, 0);
    assert.equal(b.buffer.byteLength, 0);
    assert.ok(before - arrayBuffers() >= 4 << 20, `external memory fell by ${before - arrayBuffers()} bytes`);
  });

  it('frees a typed array that is the whole of its memory', () => {
    const a = new Float64Array(100_000).fill(1);
    releaseNow(a);
    assert.equal(a.length, 0);
  });

  it('leaves a view of part of a larger allocation, and every other view of it, as they are', () => {
    const whole = Buffer.allocUnsafeSlow(4 * RELEASE_MIN_BYTES).fill(1);
    const head = whole.subarray(0, 2 * RELEASE_MIN_BYTES);
    const tail = whole.subarray(2 * RELEASE_MIN_BYTES);
    releaseNow(head);
    releaseNow(tail);
    assert.equal(whole.length, 4 * RELEASE_MIN_BYTES);
    assert.equal(head[0], 1);
    assert.equal(tail.at(-1), 1);
  });

  it('leaves small buffers (pooled ones share memory with others) to the collector', () => {
    const pooled = Buffer.from('a small answer');
    const neighbour = Buffer.from('its neighbour in the pool');
    releaseNow(pooled);
    assert.equal(pooled.toString(), 'a small answer');
    assert.equal(neighbour.toString(), 'its neighbour in the pool');
    const small = Buffer.allocUnsafeSlow(RELEASE_MIN_BYTES - 1);
    releaseNow(small);
    assert.equal(small.length, RELEASE_MIN_BYTES - 1);
  });
});
