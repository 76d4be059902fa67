// CreateTopics v7, sent to the controller: per-topic results (one topic's error does not fail
// the others), throttle_time_ms kept for 429 Retry-After on error 89, validate_only, and one
// partitions/replicas/config set per topic (the client's high-level createTopics has one for
// all). Items answered NOT_CONTROLLER are re-sent by the transport.
/*
  CreateTopics Request (Version: 7) => [topics] timeout_ms validate_only TAG_BUFFER
    topics => name num_partitions replication_factor [assignments] [configs] TAG_BUFFER
      name => COMPACT_STRING
      num_partitions => INT32
      replication_factor => INT16
      assignments => partition_index [broker_ids] TAG_BUFFER
        partition_index => INT32
        broker_ids => INT32
      configs => name value TAG_BUFFER
        name => COMPACT_STRING
        value => COMPACT_NULLABLE_STRING
    timeout_ms => INT32
    validate_only => BOOLEAN

  CreateTopics Response (Version: 7) => throttle_time_ms [topics] TAG_BUFFER
    throttle_time_ms => INT32
    topics => name topic_id error_code error_message num_partitions replication_factor [configs] TAG_BUFFER
      name => COMPACT_STRING
      topic_id => UUID
      error_code => INT16
      error_message => COMPACT_NULLABLE_STRING
      num_partitions => INT32
      replication_factor => INT16
      configs => name value read_only config_source is_sensitive TAG_BUFFER
        name => COMPACT_STRING
        value => COMPACT_NULLABLE_STRING
        read_only => BOOLEAN
        config_source => INT8
        is_sensitive => BOOLEAN
*/
import { createTopicsV7 } from '@platformatic/kafka';
import type { Answered, Transport } from '../request.js';
import type { CreatedTopic, ItemResult, NewTopic, RequestOptions } from '../types.js';
import { buildItems, catchInBand, splitDuplicates, topicIdOrNull } from './topic-items.js';
import { at, GATEWAY_APIS } from './versions.js';

type CreateTopicsResponse = Awaited<ReturnType<typeof createTopicsV7.api.async>>;
type CreateTopicsRequestTopic = Parameters<typeof createTopicsV7.createRequest>[0][number];

export async function createTopics(kafka: Transport, topics: NewTopic[], opts: RequestOptions = {}): Promise<ItemResult<CreatedTopic>[]> {
  if (topics.length === 0) return [];
  const validateOnly = opts.validateOnly ?? false;
  const { unique, duplicates } = splitDuplicates(topics, (t) => t.name);
  const requests: CreateTopicsRequestTopic[] = unique.map((t) => ({
    name: t.name,
    // -1 = broker default; must be -1 when explicit assignments are given.
    numPartitions: t.partitions ?? -1,
    replicationFactor: t.replicationFactor ?? -1,
    assignments: (t.assignments ?? []).map((brokerIds, partitionIndex) => ({ partitionIndex, brokerIds })),
    configs: Object.entries(t.configs ?? {}).map(([name, value]) => ({ name, value })),
  }));
  const build = (answered: Map<string, Answered<CreateTopicsResponse['topics'][number]>>) =>
    buildItems(
      topics,
      (t) => t.name,
      duplicates,
      answered,
      (raw) => ({
        name: raw.name,
        topicId: topicIdOrNull(raw.topicId),
        partitions: raw.numPartitions,
        replicationFactor: raw.replicationFactor,
      }),
    );
  if (requests.length === 0) return build(new Map());
  return kafka.mutateOnController(
    'CreateTopics',
    requests,
    async (conn, batch) => {
      const res = await catchInBand<CreateTopicsResponse>(
        (await at(conn, GATEWAY_APIS.CreateTopics, createTopicsV7.api)).async(conn, batch, kafka.requestTimeoutMs, validateOnly),
      );
      return { throttleTimeMs: res.throttleTimeMs, items: res.topics };
    },
    build,
  );
}
