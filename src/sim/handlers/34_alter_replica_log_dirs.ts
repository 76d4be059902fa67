// AlterReplicaLogDirs (34), v0-v2. Answered by each broker for ITSELF (Kafka's AdminClient
// sends each broker the moves of its own replicas): moves replicas between the log dirs of
// this broker, as ReplicaManager.alterReplicaLogDirs does (see ../log-dirs.ts).
//
// Per replica (topic, partition) in `dirs[].topics[]`, with the dir it names:
// - a path not in this broker's log.dirs → LOG_DIR_NOT_FOUND (57);
// - an offline dir (Simulator.logDirs.setOffline) → KAFKA_STORAGE_ERROR (56);
// - a topic or partition that does not exist → UNKNOWN_TOPIC_OR_PARTITION (3);
// - a replica this broker does not host → REPLICA_NOT_AVAILABLE (9) (Kafka keeps 9 here for
//   compatibility where it would say NOT_LEADER_OR_FOLLOWER); the dir is remembered as the
//   replica's preferred dir, so a reassignment that adds the replica later creates it there
//   (LogManager.maybeUpdatePreferredLogDir; kafka-reassign-partitions.sh relies on it);
// - else NONE: a copy into a future replica in that dir starts (replacing a running move to
//   another dir), at `replica.alter.log.dirs.io.max.bytes.per.second` of this broker; the
//   replica swaps dirs when the copy is done. The replica's current dir: no-op (cancels a
//   running move). DescribeLogDirs shows the future replica (is_future_key) meanwhile.
// Results are grouped by topic in order of first appearance, partitions in request order (Kafka:
// HashMap order). The same partition under two dirs: the later dir wins, one result (the
// request's map). Authorization (ALTER on CLUSTER) is not modelled.
// Per-version notes: v1 is v0 (throttle behaviour); v2 is flexible.
import {
  AlterReplicaLogDirsRequestSchema,
  AlterReplicaLogDirsResponseSchema,
  type AlterReplicaLogDirsRequest,
  type AlterReplicaLogDirsResponse,
} from '../protocol/messages.generated.js';
import { defineHandler } from './types.js';

export const alterReplicaLogDirsHandler = defineHandler<AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse>({
  apiKey: 34,
  name: 'AlterReplicaLogDirs',
  request: AlterReplicaLogDirsRequestSchema,
  response: AlterReplicaLogDirsResponseSchema,
  handle(ctx, req) {
    const { model, logDirs } = ctx.runtime;
    // AlterReplicaLogDirsRequest.partitionDirs: topic-partition -> dir, a later entry wins.
    const wanted = new Map<string, Map<number, string>>();
    for (const d of req.dirs) {
      for (const t of d.topics) {
        let parts = wanted.get(t.name);
        if (!parts) wanted.set(t.name, (parts = new Map<number, string>()));
        for (const p of t.partitions) parts.set(p, d.path);
      }
    }
    const results = [...wanted].map(([topicName, parts]) => {
      const view = model.topicView({ name: topicName });
      return {
        topicName,
        partitions: [...parts].map(([partitionIndex, dir]) => {
          const exists = view !== undefined && partitionIndex >= 0 && partitionIndex < view.partitions.length;
          return { partitionIndex, errorCode: logDirs.alter(ctx.brokerId, topicName, partitionIndex, dir, exists) };
        }),
      };
    });
    return { throttleTimeMs: 0, results };
  },
});
