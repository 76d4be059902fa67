// Kafka's moves as the reconciler's passes and GET /reassignments share them (one read).
import type { KafkaAdmin, MovingPartition } from '../kafka/kafka-admin.js';
import { POLLED_READ_MAX_AGE_MS, RecentRead } from '../kafka/recent-read.js';

/**
 * Every move in the cluster (ListPartitionReassignments), read again only when the latest read
 * is over POLLED_READ_MAX_AGE_MS old or this gateway moved something since: GET /reassignments
 * reads it, and the reconciler's passes, which read every move anyway, share theirs (fresh()).
 */
export function movesRead(kafka: KafkaAdmin): RecentRead<MovingPartition[]> {
  return new RecentRead(
    () => kafka.listPartitionReassignments(),
    POLLED_READ_MAX_AGE_MS,
    () => kafka.writeVersion('reassignments'),
  );
}
