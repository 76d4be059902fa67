// DescribeLogDirs (35), v0-v4. Answered by each broker for ITSELF (clients ask every broker).
//
// Every broker has one log dir, /var/lib/kafka/data-<brokerId>, always online (error 0), listing
// each replica the broker hosts with partition_size in bytes: the partition's log size (produced
// batches plus seeded bytes), or, for a replica still copying the log in a reassignment, the
// bytes it has copied so far (see ../cluster/replication.ts). offset_lag 0 and is_future_key
// false: moves between the log dirs of one broker are not modelled. topics null = every replica;
// otherwise the listed partitions it hosts (others omitted silently); topics by name. A stopped
// broker does not answer at all. Authorization (DESCRIBE on CLUSTER) is not modelled.
// Per-version notes: v1 is v0 (throttle behaviour); v2 is flexible; v3 adds the top-level
// error_code (0); v4 adds total_bytes and usable_bytes per log dir: a 1 TiB disk here, usable =
// total minus the bytes of the replicas on it.
import {
  DescribeLogDirsRequestSchema,
  DescribeLogDirsResponseSchema,
  type DescribeLogDirsRequest,
  type DescribeLogDirsResponse,
} from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

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
  handle(ctx, req) {
    const filter = req.topics === null ? null : req.topics.map((t) => ({ topic: t.topic, partitions: t.partitions }));
    const { model } = ctx.runtime;
    const sizes = model.logDirSizes(ctx.brokerId, filter);
    // The disk holds every replica, whatever the request asked to see.
    const used = filter === null ? sizes.reduce((sum, t) => sum + t.partitions.reduce((s, p) => s + p.sizeBytes, 0), 0) : model.logDirUsedBytes(ctx.brokerId);
    const topics = sizes.map((t) => ({
      name: t.topic,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partition, partitionSize: BigInt(p.sizeBytes), offsetLag: 0n, isFutureKey: false })),
    }));
    return {
      throttleTimeMs: 0,
      errorCode: 0,
      results: [
        {
          errorCode: 0,
          logDir: logDirPath(ctx.brokerId),
          topics,
          totalBytes: BigInt(LOG_DIR_TOTAL_BYTES),
          usableBytes: BigInt(Math.max(0, LOG_DIR_TOTAL_BYTES - used)),
        },
      ],
    };
  },
});
