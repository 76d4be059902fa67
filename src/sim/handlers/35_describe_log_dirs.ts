// DescribeLogDirs (35), v0-v4. Answered by each broker for ITSELF (clients ask every broker).
//
// One result per log dir of the broker (SimulatorOptions.logDirs; default one dir,
// /var/lib/kafka/data-<brokerId>), in log.dirs order. An online dir (error 0) lists each replica
// it holds with partition_size in bytes: the partition's log size (produced batches plus seeded
// bytes), or, for a replica still copying the log in a reassignment, the bytes it has copied so
// far (see ../cluster/replication.ts); offset_lag 0, is_future_key false. A replica being moved
// to another dir by AlterReplicaLogDirs (../log-dirs.ts) is also listed under the destination
// dir with is_future_key true, partition_size = bytes copied and offset_lag = the log end offset
// times the fraction not yet copied (rounded up; the model copies bytes, not records). An
// offline dir answers KAFKA_STORAGE_ERROR (56) with no topics and no sizes (-1). topics null =
// every replica; otherwise the listed partitions it hosts (others omitted silently); topics by
// name. A stopped broker does not answer at all. Authorization (DESCRIBE on CLUSTER) is not
// modelled.
// Per-version notes: v1 is v0 (throttle behaviour); v2 is flexible; v3 adds the top-level
// error_code (0); v4 adds total_bytes and usable_bytes per log dir: a 1 TiB disk per dir here,
// usable = total minus the bytes of the replicas (and future replicas) on it.
// Naming more than HEAVY_ITEMS partitions (a gateway's progress pass, ~25,000 per broker at
// 100,000 moving): a heavy request (../request-turns.ts), answered a topic at a time in ~5 ms
// slices, each reading the sizes as they are then (Kafka reads each log on its own as well).
import {
  DescribeLogDirsRequestSchema,
  DescribeLogDirsResponseSchema,
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
} from '../protocol/messages.generated.js';
import { LogDirs } from '../log-dirs.js';
import { defineHandler } from './types.js';
import { HEAVY_ITEMS } from '../request-turns.js';

/** Work between two yields of a DescribeLogDirs naming many partitions. */
const SLICE_MS = 5;

/** Size of every simulated broker's single log dir. */
export const LOG_DIR_TOTAL_BYTES = 1024 ** 4;

export function logDirPath(brokerId: number): string {
  return `/var/lib/kafka/data-${brokerId}`;
}

export const describeLogDirsHandler = defineHandler<DescribeLogDirsRequest, DescribeLogDirsResponse>({
  apiKey: 35,
  name: 'DescribeLogDirs',
  request: DescribeLogDirsRequestSchema,
  response: DescribeLogDirsResponseSchema,
  // Every replica of the broker, or many of them (../request-turns.ts).
  heavy: (req) => req.topics === null || req.topics.reduce((n, t) => n + t.partitions.length, 0) > HEAVY_ITEMS,
  handle(ctx, req) {
    const filter = req.topics === null ? null : req.topics.map((t) => ({ topic: t.topic, partitions: t.partitions }));
    const { model, logDirs } = ctx.runtime;
    const broker = ctx.brokerId;
    const dirs = logDirs.dirs(broker);
    type PartitionOut = DescribeLogDirsResponse['results'][number]['topics'][number]['partitions'][number];
    const listed = new Map<string, Map<string, PartitionOut[]>>(dirs.map((d) => [d, new Map()]));
    // The disks hold every replica, whatever the request asked to see.
    const used = new Map<string, number>(dirs.map((d) => [d, 0]));
    const add = (dir: string, topic: string, p: PartitionOut, count: boolean): void => {
      if (count) used.set(dir, (used.get(dir) ?? 0) + Number(p.partitionSize));
      const byTopic = listed.get(dir)!;
      let parts = byTopic.get(topic);
      if (!parts) byTopic.set(topic, (parts = []));
      parts.push(p);
    };
    // Every replica counts towards its dir's used bytes; only those asked for are listed. Without
    // explicit placements (log_dirs moves) every replica is in its default dir, with no future
    // replica, and the model keeps those sums: no walk of the broker's replicas.
    const placements = logDirs.hasPlacements(broker);
    if (filter !== null && !placements) {
      // The common case at scale: some partitions asked for, every replica in its default dir.
      // List only those asked for; the used bytes are the model's sums (O(dirs + rate classes),
      // not O(replicas on the broker): 1,000 partitions asked of a broker holding 25,000 copying
      // ones cost the 1,000), or a walk for dirs the model was not told about.
      const hashes = new Map<string, number>();
      const dirIndex = (topic: string, partition: number): number => {
        let h = hashes.get(topic);
        if (h === undefined) hashes.set(topic, (h = LogDirs.topicHash(topic)));
        return LogDirs.defaultDirIndex(h, partition, dirs.length);
      };
      const list = (topics: NonNullable<typeof filter>): void => {
        for (const t of model.logDirSizes(broker, topics)) {
          for (const p of t.partitions)
            add(
              dirs[dirIndex(t.topic, p.partition)],
              t.topic,
              { partitionIndex: p.partition, partitionSize: BigInt(p.sizeBytes), offsetLag: 0n, isFutureKey: false },
              false,
            );
        }
      };
      const finish = (): DescribeLogDirsResponse => {
        const dirsOfTopic = (topic: string) => {
          const h = LogDirs.topicHash(topic);
          return (partition: number) => LogDirs.defaultDirIndex(h, partition, dirs.length);
        };
        const sums =
          dirs.length === model.logDirCount
            ? model.logDirUsedBytesByDir(broker)
            : model.logDirUsedBytesByDirWalk(broker, dirsOfTopic, dirs.length);
        sums.forEach((n, i) => used.set(dirs[i], n));
        return answer();
      };
      if (filter.reduce((n, f) => n + f.partitions.length, 0) <= HEAVY_ITEMS) {
        list(filter);
        return finish();
      }
      // Many partitions (a gateway's pass names ~25,000 per broker at 100,000 moving): one topic
      // at a time, in the answer's order (by name), yielding every SLICE_MS so that the light
      // requests of other connections are answered in between (../request-turns.ts). Kafka reads
      // each log's size on its own too: there is no snapshot across partitions to keep.
      return (async () => {
        const byTopic = new Map<string, number[]>();
        for (const f of filter) {
          let parts = byTopic.get(f.topic);
          if (!parts) byTopic.set(f.topic, (parts = []));
          for (const p of f.partitions) parts.push(p);
        }
        let since = performance.now();
        for (const topic of [...byTopic.keys()].sort()) {
          list([{ topic, partitions: byTopic.get(topic)! }]);
          if (performance.now() - since >= SLICE_MS) {
            await new Promise((resolve) => setImmediate(resolve));
            since = performance.now();
          }
        }
        return finish();
      })();
    }
    // The walk: what was asked for, as sets (built only here, not for the common case above).
    const wanted = filter === null ? null : new Map<string, Set<number>>();
    if (filter !== null)
      for (const f of filter) {
        let set = wanted!.get(f.topic);
        if (!set) wanted!.set(f.topic, (set = new Set()));
        for (const p of f.partitions) set.add(p);
      }
    const usedByIndex = new Array<number>(dirs.length).fill(0);
    for (const t of model.logDirSizes(broker, null)) {
      const want = wanted === null ? undefined : wanted.get(t.topic);
      const h = LogDirs.topicHash(t.topic);
      for (const p of t.partitions) {
        const show = wanted === null || (want !== undefined && want.has(p.partition));
        if (!placements) {
          const dir = dirs[LogDirs.defaultDirIndex(h, p.partition, dirs.length)];
          usedByIndex[LogDirs.defaultDirIndex(h, p.partition, dirs.length)] += p.sizeBytes;
          if (show)
            add(
              dir,
              t.topic,
              { partitionIndex: p.partition, partitionSize: BigInt(p.sizeBytes), offsetLag: 0n, isFutureKey: false },
              false,
            );
          continue;
        }
        const dir = logDirs.dirOf(broker, t.topic, p.partition);
        used.set(dir, (used.get(dir) ?? 0) + p.sizeBytes);
        if (show)
          add(dir, t.topic, { partitionIndex: p.partition, partitionSize: BigInt(p.sizeBytes), offsetLag: 0n, isFutureKey: false }, false);
        const future = logDirs.future(broker, t.topic, p.partition);
        if (future) {
          const leo = model.listOffset(t.topic, p.partition, -1).offset;
          const left = future.totalBytes === 0 ? 0 : (future.totalBytes - future.copiedBytes) / future.totalBytes;
          const partitionSize = BigInt(future.copiedBytes);
          if (show)
            add(
              future.dir,
              t.topic,
              { partitionIndex: p.partition, partitionSize, offsetLag: BigInt(Math.ceil(Number(leo) * left)), isFutureKey: true },
              true,
            );
          else used.set(future.dir, (used.get(future.dir) ?? 0) + future.copiedBytes);
        }
      }
    }
    dirs.forEach((d, i) => used.set(d, (used.get(d) ?? 0) + usedByIndex[i]));
    return answer();

    function answer(): DescribeLogDirsResponse {
      return {
        throttleTimeMs: 0,
        errorCode: 0,
        results: dirs.map((dir) =>
          logDirs.isOnline(broker, dir)
            ? {
                errorCode: 0,
                logDir: dir,
                topics: [...listed.get(dir)!].map(([name, partitions]) => ({ name, partitions })),
                totalBytes: BigInt(LOG_DIR_TOTAL_BYTES),
                usableBytes: BigInt(Math.max(0, LOG_DIR_TOTAL_BYTES - (used.get(dir) ?? 0))),
              }
            : { errorCode: 56, logDir: dir, topics: [], totalBytes: -1n, usableBytes: -1n },
        ),
      };
    }
  },
});
