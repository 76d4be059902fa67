// RecentRead (src/kafka/recent-read.ts): pollers share a read of Kafka for maxAgeMs after its
// start, unless this gateway wrote since (a reader that must see Kafka now reads fresh() and
// shares it); WriteCounts counts a gateway's writes per resource.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecentRead, RecentReadsByKey, WriteCounts } from '../../src/kafka/recent-read.js';

function fixture(maxAgeMs = 1000) {
  let now = 0;
  let reads = 0;
  let fail = false;
  const writes = new WriteCounts();
  const read = new RecentRead(
    async () => {
      reads++;
      if (fail) throw new Error('broker down');
      return `read ${reads}`;
    },
    maxAgeMs,
    () => writes.versionOf('reassignments'),
    () => now,
  );
  return { read, writes, tick: (ms: number) => (now += ms), reads: () => reads, failNext: (f: boolean) => (fail = f) };
}

describe('RecentRead', () => {
  it('concurrent callers share one read; callers within maxAgeMs of its start get it again', async () => {
    const f = fixture();
    const [a, b] = await Promise.all([f.read.get(), f.read.get()]);
    assert.deepEqual([a, b, f.reads()], ['read 1', 'read 1', 1]);
    f.tick(1000);
    assert.equal(await f.read.get(), 'read 1');
    f.tick(1);
    assert.equal(await f.read.get(), 'read 2', 'older than maxAgeMs: read again');
    assert.equal(f.reads(), 2);
  });

  it('a write of what it reads since the read: the next caller reads anew; a write of another resource changes nothing', async () => {
    const f = fixture();
    assert.equal(await f.read.get(), 'read 1');
    f.writes.wrote('configs');
    assert.equal(await f.read.get(), 'read 1');
    f.writes.wrote('reassignments');
    assert.equal(await f.read.get(), 'read 2');
    assert.equal(await f.read.get(), 'read 2');
    assert.deepEqual([f.writes.versionOf('reassignments'), f.writes.versionOf('configs')], [1, 1]);
  });

  it('fresh() reads whatever the latest read, and the callers after it share that read', async () => {
    const f = fixture();
    assert.equal(await f.read.get(), 'read 1');
    assert.equal(await f.read.fresh(), 'read 2', 'a reader that must see Kafka now');
    f.tick(500);
    assert.equal(await f.read.get(), 'read 2');
    assert.equal(f.reads(), 2);
  });

  it('a failed read is not answered again', async () => {
    const f = fixture();
    f.failNext(true);
    await assert.rejects(f.read.get(), /broker down/);
    f.failNext(false);
    assert.equal(await f.read.get(), 'read 2');
  });

  it('maxAgeMs 0 shares only reads that started in the same instant', async () => {
    const f = fixture(0);
    assert.equal(await f.read.get(), 'read 1');
    f.tick(1);
    assert.equal(await f.read.get(), 'read 2');
  });
});

describe('RecentReadsByKey', () => {
  function keyed(maxKeys = 3) {
    let now = 0;
    let version = 0;
    const reads: string[] = [];
    const failing = new Set<string>();
    const cache = new RecentReadsByKey(
      async (key: string) => {
        reads.push(key);
        if (failing.has(key)) throw new Error(`no ${key}`);
        return `${key} #${reads.filter((k) => k === key).length}`;
      },
      { maxAgeMs: 1000, version: () => version, maxKeys, now: () => now },
    );
    return { cache, reads, failing, tick: (ms: number) => (now += ms), write: () => version++ };
  }

  it('per key: concurrent callers share a read, answered again within maxAgeMs, read anew after it or after a write', async () => {
    const f = keyed();
    assert.deepEqual(await Promise.all([f.cache.get('a'), f.cache.get('a'), f.cache.get('b')]), ['a #1', 'a #1', 'b #1']);
    f.tick(1000);
    assert.equal(await f.cache.get('a'), 'a #1');
    f.tick(1);
    assert.equal(await f.cache.get('a'), 'a #2', 'older than maxAgeMs');
    f.write();
    assert.equal(await f.cache.get('a'), 'a #3', 'this gateway wrote since');
    assert.deepEqual(f.reads, ['a', 'b', 'a', 'a']);
  });

  it('a failed read is not answered again', async () => {
    const f = keyed();
    f.failing.add('gone');
    await assert.rejects(f.cache.get('gone'), /no gone/);
    f.failing.delete('gone');
    assert.equal(await f.cache.get('gone'), 'gone #2');
  });

  it('bounded: reads too old to be answered again are dropped, and never more than maxKeys are held', async () => {
    const f = keyed(3);
    await Promise.all(['a', 'b', 'c'].map((k) => f.cache.get(k)));
    assert.equal(f.cache.size, 3);
    await f.cache.get('d'); // the oldest (a) makes room
    assert.equal(f.cache.size, 3);
    assert.equal(await f.cache.get('b'), 'b #1', 'b is still held');
    assert.equal(await f.cache.get('a'), 'a #2', 'a was dropped');
    f.tick(1001);
    await f.cache.get('e');
    assert.equal(f.cache.size, 1, 'every read older than maxAgeMs dropped when another starts');
  });
});
