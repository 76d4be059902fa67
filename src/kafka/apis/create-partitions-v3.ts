// CreatePartitions v3, sent to the controller. v3 is the strict quota mode: the broker answers
// THROTTLING_QUOTA_EXCEEDED (89) per topic instead of delaying the answer. Per-topic results,
// throttle_time_ms kept for 429 Retry-After. Items answered NOT_CONTROLLER are re-sent by the
// transport. The caller serialises these requests (src/kafka/admin.ts says why).
/*
  CreatePartitions Request (Version: 3) => [topics] timeout_ms validate_only TAG_BUFFER
    topics => name count [assignments] TAG_BUFFER
      name => COMPACT_STRING
      count => INT32
      assignments => [broker_ids] TAG_BUFFER
        broker_ids => INT32
    timeout_ms => INT32
    validate_only => BOOLEAN

  CreatePartitions Response (Version: 3) => throttle_time_ms [results] TAG_BUFFER
    throttle_time_ms => INT32
    results => name error_code error_message TAG_BUFFER
      name => COMPACT_STRING
      error_code => INT16
      error_message => COMPACT_NULLABLE_STRING
*/
import { createPartitionsV3 } from '@platformatic/kafka';
import type { Answered, RawItem, Transport } from '../request.js';
import type { ItemResult, PartitionIncrease, RequestOptions } from '../types.js';
import { buildItems, catchInBand, splitDuplicates } from './topic-items.js';
import { at, GATEWAY_APIS } from './versions.js';

type CreatePartitionsResponse = Awaited<ReturnType<typeof createPartitionsV3.api.async>>;
type CreatePartitionsRequestTopic = Parameters<typeof createPartitionsV3.createRequest>[0][number];

/**
 * `serialise` runs the request (not the local checks before it): the gateway passes a mutex,
 * so one CreatePartitions is in flight at a time.
 */
export async function createPartitions(
  kafka: Transport,
  increases: PartitionIncrease[],
  opts: RequestOptions = {},
  serialise: <T>(send: () => Promise<T>) => Promise<T> = (send) => send(),
): Promise<ItemResult<null>[]> {
  if (increases.length === 0) return [];
  const validateOnly = opts.validateOnly ?? false;
  const { unique, duplicates } = splitDuplicates(increases, (i) => i.topic);
  const requests: CreatePartitionsRequestTopic[] = unique.map((i) => ({
    name: i.topic,
    count: i.count,
    assignments: i.assignments ? i.assignments.map((brokerIds) => ({ brokerIds })) : null,
  }));
  const build = (answered: Map<string, Answered<RawItem>>) =>
    buildItems(
      increases,
      (i) => i.topic,
      duplicates,
      answered,
      () => null,
    );
  if (requests.length === 0) return build(new Map());
  // Serialised: one CreatePartitions in flight at a time. The client's own
  // createPartitions merges concurrent calls and silently loses one; we do not use it,
  // but keep the guarantee (and a predictable order of quota charges).
  return serialise(() =>
    kafka.mutateOnController(
      'CreatePartitions',
      requests,
      async (conn, batch) => {
        const res = await catchInBand<CreatePartitionsResponse>(
          (await at(conn, GATEWAY_APIS.CreatePartitions, createPartitionsV3.api)).async(conn, batch, kafka.requestTimeoutMs, validateOnly),
        );
        return { throttleTimeMs: res.throttleTimeMs, items: res.results };
      },
      build,
    ),
  );
}
