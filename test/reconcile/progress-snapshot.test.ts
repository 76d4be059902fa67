// ProgressTracker.snapshot reads the adding replicas' sizes as columns of a DescribeLogDirs
// request it keeps across passes (sent again while the moving partitions are the same list).
// Property: over a run of passes whose records sometimes stay and sometimes change, it writes the
// totals, done bytes and likely-last partitions the former code computed (Map of sizes per
// broker keyed by replicaKey, adding replicas by filter, a sort for the top partitions), and the
// request it sends names exactly the moving partitions of that pass, the same object while they
// do not change.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { replicaKey, slotOf, type BrokerSizeColumns, type KafkaAdmin, type ReplicaSizesRequest } from '../../src/kafka/kafka-admin.js';
import { ProgressTracker } from '../../src/reconcile/progress.js';
import { END_WATCH_MAX_PARTITIONS } from '../../src/reconcile/end-watch.js';
import type { ProgressRecord, ReassignmentPartitionRecord, ReassignmentRecord } from '../../src/state/records.js';
import type { StateStore } from '../../src/state/store.js';

const BROKERS = [0, 1, 2, 3, 4];
const INTERVAL = 1000;

const arbPartition = fc.record({
  topic: fc.constantFrom('a', 'b', 'c'),
  partition: fc.nat(30),
  original: fc.subarray(BROKERS, { minLength: 1 }),
  // Duplicates kept: the adding replicas are counted as the filter counted them.
  target: fc.array(fc.constantFrom(...BROKERS), { minLength: 1, maxLength: 4 }),
  state: fc.constantFrom('queued', 'moving', 'moving', 'moving', 'completed', 'failed'),
  bytesTotal: fc.oneof(
    fc.constant(undefined),
    fc.constant(null),
    fc.constant(0),
    fc.integer({ min: 1, max: 5000 }),
    fc.constant(-3),
    fc.double({ min: 0.5, max: 7000, noNaN: true }),
  ),
  supersededBy: fc.option(fc.constant('z'), { nil: undefined, freq: 8 }),
});
const arbRecords = fc.array(fc.array(arbPartition, { maxLength: 300 }), { minLength: 1, maxLength: 3 });
/** Sizes on each broker of (topic, partition), absent = the broker has no replica; brokers that do not answer. */
const arbCluster = fc.record({
  sizes: fc.array(fc.tuple(fc.constantFrom(...BROKERS), fc.constantFrom('a', 'b', 'c'), fc.nat(30), fc.nat(6000)), { maxLength: 200 }),
  down: fc.subarray(BROKERS, { maxLength: 1 }),
});
/** Passes: a new set of records, or the previous one again (the request kept is sent again). */
const arbPasses = fc.array(fc.tuple(fc.boolean(), arbRecords, arbCluster), { minLength: 1, maxLength: 4 });

const record = (id: string, partitions: ReassignmentPartitionRecord[]): ReassignmentRecord =>
  ({ id, state: 'running', partitions }) as unknown as ReassignmentRecord;

/** The former snapshot's numbers for one record (the code before the columns), given sizes per broker keyed by replicaKey. */
function formerSnapshot(r: ReassignmentRecord, sizes: Map<number, Map<string, number>>) {
  const counted = (p: ReassignmentPartitionRecord) =>
    !p.supersededBy && (p.state === 'queued' || p.state === 'moving' || p.state === 'completed');
  const adding = (p: ReassignmentPartitionRecord) => p.target.filter((b) => !p.original.includes(b));
  let total = 0;
  let done = 0;
  let i = 0;
  const offers: { score: number; order: number; p: ReassignmentPartitionRecord }[] = [];
  for (const p of r.partitions) {
    ++i;
    if (!counted(p)) continue;
    const t = p.bytesTotal ?? 0;
    total += t;
    if (p.state === 'completed') done += t;
    else if (p.state === 'moving' && t > 0) {
      const add = adding(p);
      const share = t / Math.max(1, add.length);
      const k = replicaKey(p.topic, p.partition);
      let copied = 0;
      for (const b of add) copied += Math.min(share, sizes.get(b)?.get(k) ?? 0);
      done += copied;
      offers.push({ score: t - copied, order: i, p });
    }
  }
  offers.sort((a, b) => b.score - a.score || a.order - b.order);
  return { total, done: Math.round(done), likelyLast: offers.slice(0, END_WATCH_MAX_PARTITIONS).map((o) => o.p) };
}

it('snapshot: the former totals, done bytes and likely-last partitions, with the request kept while the moving partitions do not change', async () => {
  await fc.assert(
    fc.asyncProperty(arbPasses, async (passes) => {
      let now = 10_000;
      const progress = new Map<string, ProgressRecord>();
      const store = {
        view: () => ({ progress }),
        write: async (ws: ProgressRecord[]) => ws.forEach((w) => progress.set(w.id, w)),
      } as unknown as StateStore;
      let cluster = passes[0][2];
      const sent: ReplicaSizesRequest[] = [];
      const kafka = {
        describeReplicaSizeColumns: async (brokers: number[], request: ReplicaSizesRequest): Promise<BrokerSizeColumns[]> => {
          sent.push(request);
          const { keys } = request;
          return [...new Set(brokers)].map((broker): BrokerSizeColumns => {
            if (cluster.down.includes(broker))
              return {
                broker,
                ok: false,
                error: { code: 15, name: 'COORDINATOR_NOT_AVAILABLE', message: 'down', retriable: true },
              } as BrokerSizeColumns;
            const sizes = new Float64Array(keys.count).fill(NaN);
            for (const [b, topic, partition, size] of cluster.sizes) {
              const slot = slotOf(keys, topic, partition);
              if (b === broker && slot >= 0) sizes[slot] = size;
            }
            return { broker, ok: true, sizes, dirs: [] };
          });
        },
      } as unknown as KafkaAdmin;
      const tracker = new ProgressTracker({ kafka, store, options: { stallAfterMs: 60_000 }, intervalMs: INTERVAL, now: () => now });
      let records: ReassignmentRecord[] = [];
      let previousMoving: ReassignmentPartitionRecord[] | null = null;
      for (const [again, parts, c] of passes) {
        cluster = c;
        if (!again || records.length === 0) records = parts.map((ps, i) => record(`r${i}`, ps as ReassignmentPartitionRecord[]));
        const former = new Map<number, Map<string, number>>();
        for (const [b, topic, partition, size] of cluster.sizes)
          if (!cluster.down.includes(b)) {
            let m = former.get(b);
            if (!m) former.set(b, (m = new Map()));
            m.set(replicaKey(topic, partition), size);
          }
        const moving = records.flatMap((r) => r.partitions.filter((p) => p.state === 'moving' && !p.supersededBy && !!p.bytesTotal));
        const before = new Map([...progress].map(([id, pr]) => [id, pr.snapshots.at(-1)]));
        const sentBefore = sent.length;
        const ids = await tracker.snapshot(records, async () => {});
        assert.deepEqual(
          ids,
          records.map((r) => r.id),
        );
        // The request: none without moving partitions, else one naming exactly them, in order.
        if (moving.length === 0) assert.equal(sent.length, sentBefore);
        else {
          assert.equal(sent.length, sentBefore + 1);
          const request = sent.at(-1)!;
          const { keys } = request;
          assert.equal(keys.inputSlot.length, moving.length);
          moving.forEach((p, i) => {
            const s = keys.inputSlot[i];
            assert.equal(keys.topicNames[keys.slotTopic[s]], p.topic);
            assert.equal(keys.slotPartition[s], p.partition);
          });
          const sameList =
            previousMoving !== null &&
            previousMoving.length === moving.length &&
            previousMoving.every((p, i) => p.topic === moving[i].topic && p.partition === moving[i].partition);
          if (sameList) assert.equal(request, sent.at(-2), 'the same list: the request kept is sent again');
        }
        previousMoving = moving.length > 0 ? moving : null; // no moving partition: nothing is kept
        const unanswered =
          moving.length > 0 && moving.some((p) => p.target.some((b) => !p.original.includes(b) && cluster.down.includes(b)));
        for (const r of records) {
          const f = formerSnapshot(r, former);
          const last = progress.get(r.id)!.snapshots.at(-1)!;
          const prev = before.get(r.id);
          assert.equal(last.bytesTotal, f.total);
          assert.equal(last.bytesDone, unanswered && prev && prev.bytesTotal === f.total ? Math.max(f.done, prev.bytesDone) : f.done);
          assert.deepEqual(tracker.likelyLast(r.id), f.likelyLast);
        }
        now += INTERVAL;
      }
    }),
    { numRuns: 200 },
  );
});
