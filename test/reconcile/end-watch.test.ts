// The shared per-pass structures of the reconciler and the end watch's sample: the time-sliced
// variants answer exactly what the plain functions answer (property tests), and the sample
// keeps, per running reassignment, its moving partitions with the most bytes left, bounded.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { endWatchSample, TopK } from '../../src/reconcile/end-watch.js';
import { attributeMoves, attributeMovesPaced, partitionOwners, partitionOwnersPaced, partitionId } from '../../src/reconcile/ownership.js';
import { endedTopics } from '../../src/reconcile/reconciler.js';
import type { ReassignmentRecord } from '../../src/state/records.js';
import type { StateView } from '../../src/state/store.js';

type P = { topic: string; partition: number; state: string; bytesTotal?: number; startError?: string; supersededBy?: string };
const rec = (id: string, createdAt: number, partitions: P[], state = 'running', extra: Record<string, unknown> = {}): ReassignmentRecord =>
  ({ id, createdAt, state, partitions, ...extra }) as unknown as ReassignmentRecord;
const viewOf = (records: ReassignmentRecord[]): StateView => ({
  reassignments: new Map(records.map((r) => [r.id, r])),
  throttleRequests: new Map(),
  ledger: new Map(),
  progress: new Map(),
});
/** A pace that yields every time (the most interleaving the loops can see). */
const yieldEveryTime = () => new Promise<void>((r) => setImmediate(r));

const arbPartition = fc.record({
  topic: fc.constantFrom('a', 'b', 'c'),
  partition: fc.nat(40),
  state: fc.constantFrom('queued', 'moving', 'completed', 'cancelled'),
  bytesTotal: fc.nat(1000),
  startError: fc.option(fc.constant('x'), { nil: undefined }),
  supersededBy: fc.option(fc.constant('z'), { nil: undefined }),
});
const arbRecords = fc
  .array(
    fc.record({
      createdAt: fc.nat(5),
      state: fc.constantFrom('pending', 'running', 'running', 'completed'),
      partitions: fc.array(arbPartition, { maxLength: 1200, size: 'max' }),
    }),
    { maxLength: 4 },
  )
  .map((rs) => rs.map((r, i) => rec(`r${i}`, r.createdAt, r.partitions as P[], r.state, { startDeadline: 0 })));
const arbMoving = fc.array(fc.record({ topic: fc.constantFrom('a', 'b', 'c', 'x'), partition: fc.nat(40) }), { maxLength: 200 });

it('partitionOwnersPaced and attributeMovesPaced answer what partitionOwners and attributeMoves answer', async () => {
  await fc.assert(
    fc.asyncProperty(arbRecords, arbMoving, async (records, moving) => {
      const plain = partitionOwners(viewOf(records));
      const paced = await partitionOwnersPaced(viewOf(records), yieldEveryTime);
      assert.deepEqual([...paced], [...plain]);

      const view = viewOf(records);
      const attributed = attributeMoves(moving as never, view);
      const shared = await attributeMovesPaced(moving as never, view, yieldEveryTime);
      assert.deepEqual(shared.movingIds, new Set(moving.map((m) => partitionId(m.topic, m.partition))));
      assert.equal(shared.gateway, attributed.filter((a) => a.reassignmentId !== null).length);
      assert.equal(shared.external, attributed.filter((a) => a.reassignmentId === null).length);
      const byOwner = new Map<string, Set<string>>();
      for (const a of attributed)
        if (a.reassignmentId)
          (byOwner.get(a.reassignmentId) ?? byOwner.set(a.reassignmentId, new Set()).get(a.reassignmentId)!).add(
            partitionId(a.topic, a.partition),
          );
      assert.deepEqual(shared.movingOf, byOwner);
    }),
    { numRuns: 60 },
  );
});

it('attributeMovesPaced: every move owned by one reassignment, a mix, or none', async () => {
  const one = rec(
    'r1',
    1,
    [0, 1, 2].map((partition) => ({ topic: 'a', partition, state: 'moving' })),
  );
  const two = rec('r2', 2, [{ topic: 'b', partition: 0, state: 'moving' }]);
  const view = viewOf([one, two]);
  const all = await attributeMovesPaced([0, 1, 2].map((partition) => ({ topic: 'a', partition })) as never, view, yieldEveryTime);
  assert.deepEqual(all.movingOf, new Map([['r1', new Set(['a:0', 'a:1', 'a:2'])]]));
  assert.deepEqual([all.gateway, all.external], [3, 0]);
  const withExternal = await attributeMovesPaced(
    [
      { topic: 'a', partition: 1 },
      { topic: 'x', partition: 0 },
    ] as never,
    view,
    yieldEveryTime,
  );
  assert.deepEqual(withExternal.movingOf, new Map([['r1', new Set(['a:1'])]]));
  assert.deepEqual(withExternal.movingIds, new Set(['a:1', 'x:0']));
  assert.deepEqual([withExternal.gateway, withExternal.external], [1, 1]);
  const both = await attributeMovesPaced(
    [
      { topic: 'a', partition: 2 },
      { topic: 'b', partition: 0 },
    ] as never,
    view,
    yieldEveryTime,
  );
  assert.deepEqual(
    both.movingOf,
    new Map([
      ['r1', new Set(['a:2'])],
      ['r2', new Set(['b:0'])],
    ]),
  );
  const none = await attributeMovesPaced([], view, yieldEveryTime);
  assert.deepEqual([none.movingOf.size, none.movingIds.size, none.gateway, none.external], [0, 0, 0, 0]);
});

it('endedTopics: topics of moving (running) or open (pending past its deadline) partitions Kafka no longer lists', async () => {
  await fc.assert(
    fc.asyncProperty(arbRecords, arbMoving, async (records, moving) => {
      const ids = new Set(moving.map((m) => partitionId(m.topic, m.partition)));
      const expected = new Set<string>();
      for (const r of records) {
        const open = r.state === 'running' ? ['moving'] : r.state === 'pending' ? ['queued', 'moving'] : [];
        for (const p of r.partitions)
          if (!p.supersededBy && open.includes(p.state) && !ids.has(partitionId(p.topic, p.partition))) expected.add(p.topic);
      }
      assert.deepEqual(await endedTopics(viewOf(records), ids, () => true, yieldEveryTime), expected);
    }),
    { numRuns: 60 },
  );
});

it('TopK keeps the k highest scores, ties to the lowest order, highest first', () => {
  fc.assert(
    fc.property(fc.array(fc.nat(20), { maxLength: 300 }), fc.nat(40), (scores, k) => {
      const top = new TopK<number>(k);
      scores.forEach((s, i) => top.offer(s, i, i));
      const expected = scores
        .map((s, i) => ({ s, i }))
        .sort((a, b) => b.s - a.s || a.i - b.i)
        .slice(0, k)
        .map((e) => e.i);
      assert.deepEqual(top.items(), expected);
    }),
  );
});

it('endWatchSample without a snapshot: per running record, its listed moving partitions with the largest bytesTotal, an equal share of the bound', async () => {
  await fc.assert(
    fc.asyncProperty(arbRecords, arbMoving, fc.integer({ min: 1, max: 60 }), async (records, moving, max) => {
      const view = viewOf(records);
      const moves = await attributeMovesPaced(moving as never, view, yieldEveryTime);
      const left = (p: ReassignmentRecord['partitions'][number]) => p.bytesTotal ?? 0;
      const sample = await endWatchSample(records, moves.movingOf, () => undefined, max, yieldEveryTime);
      assert.ok(sample.length <= max, `${sample.length} > ${max}`);
      const watched = records.filter((r) => r.state === 'running' && (moves.movingOf.get(r.id)?.size ?? 0) > 0).slice(0, max);
      const share = Math.max(1, Math.floor(max / Math.max(1, watched.length)));
      for (const r of records) {
        const got = sample.filter((s) => s.id === r.id);
        const candidates = r.partitions
          .map((p, i) => ({ p, i }))
          .filter(({ p }) => !p.supersededBy && p.state === 'moving' && moves.movingOf.get(r.id)?.has(partitionId(p.topic, p.partition)));
        if (!watched.includes(r)) {
          assert.equal(got.length, 0);
          continue;
        }
        const expected = candidates
          .sort((a, b) => left(b.p) - left(a.p) || a.i - b.i)
          .slice(0, share)
          .map(({ p }) => ({ id: r.id, topic: p.topic, partition: p.partition }));
        assert.deepEqual(got, expected);
      }
    }),
    { numRuns: 60 },
  );
});

it('endWatchSample with a snapshot: the partitions it found with the most bytes left that Kafka still lists, in its order; a scan when none is', async () => {
  const ps: P[] = [0, 1, 2, 3, 4, 5].map((i) => ({ topic: 't', partition: i, state: 'moving', bytesTotal: 10 * i }));
  const r = rec('r', 1, ps);
  const listed = (ids: number[]) => new Map([['r', new Set(ids.map((i) => partitionId('t', i)))]]);
  const hint = [ps[1], ps[3], ps[0]] as unknown as ReassignmentRecord['partitions'];
  const of = (sample: { partition: number }[]) => sample.map((s) => s.partition);
  // In the snapshot's order, only those Kafka still lists, at most the share.
  assert.deepEqual(of(await endWatchSample([r], listed([0, 1, 2, 3, 4, 5]), () => hint, 2)), [1, 3]);
  assert.deepEqual(of(await endWatchSample([r], listed([0, 2, 3, 4, 5]), () => hint, 2)), [3, 0]);
  // Every hinted partition ended: the largest bytesTotal of those still listed.
  assert.deepEqual(of(await endWatchSample([r], listed([2, 4, 5]), () => hint, 2)), [5, 4]);
  // Nothing listed for it: not watched; records not running: not watched.
  assert.deepEqual(await endWatchSample([r], new Map(), () => hint, 2), []);
  assert.deepEqual(await endWatchSample([rec('r', 1, ps, 'completed')], listed([1]), () => hint, 2), []);
});

it('endWatchSample at 100,000 moving partitions: the 2000 with the most bytes left', async () => {
  const partitions: P[] = [];
  for (let i = 0; i < 100_000; i++)
    partitions.push({ topic: `t${Math.floor(i / 1000)}`, partition: i % 1000, state: 'moving', bytesTotal: (i * 7919) % 100_003 });
  const r = rec('big', 1, partitions);
  const movingOf = new Map([['big', new Set(partitions.map((p) => partitionId(p.topic, p.partition)))]]);
  const sample = await endWatchSample([r], movingOf, () => undefined, 2000);
  assert.equal(sample.length, 2000);
  const cutoff = [...partitions].map((p) => p.bytesTotal!).sort((a, b) => b - a)[1999];
  const byId = new Map(partitions.map((p) => [partitionId(p.topic, p.partition), p.bytesTotal!]));
  assert.ok(sample.every((s) => byId.get(partitionId(s.topic, s.partition))! >= cutoff));
});
