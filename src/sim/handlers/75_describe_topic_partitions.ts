// DescribeTopicPartitions (75), v0 (KIP-966; Kafka 3.8+ clients describe topics with it, paged).
//
// As KRaft's DescribeTopicPartitionsRequestHandler and KRaftMetadataCache answer it:
// - topics [] = every topic; otherwise the named ones (each once). Topics come sorted by name;
//   a named topic that does not exist → UNKNOWN_TOPIC_OR_PARTITION (3), no partitions.
// - response_partition_limit is clamped to [1, 2000] (max.request.partition.size.limit). The
//   answer holds at most that many partitions, starting at the cursor (topic name, partition
//   index) when one is given; when partitions are left, next_cursor names the first of them.
//   A cursor naming a topic that is not requested → INVALID_REQUEST for every named topic.
// - partitions: leader, leader epoch, replicas, ISR, offline replicas; eligible leader replicas
//   and last known ELR are empty (ELR is off, as by default in 3.9).
// - topic_authorized_operations is always set (the request has no flag for it): 3576, every
//   operation a topic supports, as a broker without an authorizer answers
//   (DescribeTopicPartitionsRequestHandler: authHelper.authorizedOperations for each topic of the
//   answer, unknown ones included); the INVALID_REQUEST answer to a bad cursor is an error
//   response and keeps the default -2147483648.
import {
  DescribeTopicPartitionsRequestSchema,
  DescribeTopicPartitionsResponseSchema,
  type DescribeTopicPartitionsRequest,
  type DescribeTopicPartitionsResponse,
} from '../protocol/messages.generated.js';
import { AUTHORIZED_OPERATIONS_OMITTED, TOPIC_AUTHORIZED_OPERATIONS } from './results.js';
import { defineHandler } from './types.js';

type TopicResult = DescribeTopicPartitionsResponse['topics'][number];
const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** max.request.partition.size.limit (default). */
const MAX_PARTITIONS = 2000;

export const describeTopicPartitionsHandler = defineHandler<DescribeTopicPartitionsRequest, DescribeTopicPartitionsResponse>({
  apiKey: 75,
  name: 'DescribeTopicPartitions',
  request: DescribeTopicPartitionsRequestSchema,
  response: DescribeTopicPartitionsResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const fetchAll = req.topics.length === 0;
    const names = fetchAll ? model.topicViews().map((v) => v.name) : [...new Set(req.topics.map((t) => t.name))].sort();
    const failed = (name: string, errorCode: number): TopicResult => ({
      errorCode,
      name,
      topicId: ZERO_UUID,
      isInternal: false,
      partitions: [],
      topicAuthorizedOperations: TOPIC_AUTHORIZED_OPERATIONS,
    });
    const cursor = req.cursor;
    if (cursor !== null && !fetchAll && !names.includes(cursor.topicName)) {
      const invalid = (n: string): TopicResult => ({ ...failed(n, 42), topicAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED });
      return { throttleTimeMs: 0, topics: names.map(invalid), nextCursor: null };
    }
    let budget = Math.max(1, Math.min(MAX_PARTITIONS, req.responsePartitionLimit));
    const topics: TopicResult[] = [];
    let nextCursor: DescribeTopicPartitionsResponse['nextCursor'] = null;
    for (const name of names) {
      if (cursor !== null && name < cursor.topicName) continue;
      const view = model.topicView({ name });
      if (!view) {
        if (!fetchAll) topics.push(failed(name, 3));
        continue;
      }
      const first = cursor !== null && name === cursor.topicName ? Math.max(0, cursor.partitionIndex) : 0;
      if (budget === 0) {
        if (first < view.partitions.length) {
          nextCursor = { topicName: name, partitionIndex: first };
          break;
        }
        continue;
      }
      const partitions: TopicResult['partitions'] = [];
      let i = first;
      for (; i < view.partitions.length && budget > 0; i++, budget--) {
        const p = view.partitions[i];
        partitions.push({
          errorCode: 0,
          partitionIndex: p.partition,
          leaderId: p.leader,
          leaderEpoch: p.leaderEpoch,
          replicaNodes: [...p.replicas],
          isrNodes: [...p.isr],
          eligibleLeaderReplicas: [],
          lastKnownElr: [],
          offlineReplicas: [...p.offlineReplicas],
        });
      }
      topics.push({
        errorCode: 0,
        name,
        topicId: view.topicId,
        isInternal: false,
        partitions,
        topicAuthorizedOperations: TOPIC_AUTHORIZED_OPERATIONS,
      });
      if (i < view.partitions.length) {
        nextCursor = { topicName: name, partitionIndex: i };
        break;
      }
    }
    return { throttleTimeMs: 0, topics, nextCursor };
  },
});
