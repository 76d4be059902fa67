// DeleteTopics v6, sent to the controller, by name: per-topic results, throttle_time_ms kept
// for 429 Retry-After on error 89. Items answered NOT_CONTROLLER are re-sent by the transport.
/*
  DeleteTopics Request (Version: 6) => [topics] timeout_ms TAG_BUFFER
    topics => name topic_id TAG_BUFFER
      name => COMPACT_NULLABLE_STRING
      topic_id => UUID
    timeout_ms => INT32

  DeleteTopics Response (Version: 6) => throttle_time_ms [responses] TAG_BUFFER
    throttle_time_ms => INT32
    responses => name topic_id error_code error_message TAG_BUFFER
      name => COMPACT_NULLABLE_STRING
      topic_id => UUID
      error_code => INT16
      error_message => COMPACT_NULLABLE_STRING
*/
import { deleteTopicsV6 } from '@platformatic/kafka';
import type { Answered, RawItem, Transport } from '../request.js';
import type { ItemResult } from '../types.js';
import { buildItems, catchInBand, splitDuplicates } from './topic-items.js';
import { at, GATEWAY_APIS } from './versions.js';

type DeleteTopicsResponse = Awaited<ReturnType<typeof deleteTopicsV6.api.async>>;

export async function deleteTopics(kafka: Transport, names: string[]): Promise<ItemResult<null>[]> {
  if (names.length === 0) return [];
  const { unique, duplicates } = splitDuplicates(names, (n) => n);
  const build = (answered: Map<string, Answered<RawItem>>) =>
    buildItems(
      names,
      (n) => n,
      duplicates,
      answered,
      () => null,
    );
  if (unique.length === 0) return build(new Map());
  return kafka.mutateOnController(
    'DeleteTopics',
    unique.map((name) => ({ name })),
    async (conn, batch) => {
      const res = await catchInBand<DeleteTopicsResponse>(
        (await at(conn, GATEWAY_APIS.DeleteTopics, deleteTopicsV6.api)).async(
          conn,
          batch.map((b) => ({ name: b.name, topicId: null })),
          kafka.requestTimeoutMs,
        ),
      );
      const items = res.responses.map((r) => ({ name: r.name ?? '', errorCode: r.errorCode, errorMessage: r.errorMessage }));
      return { throttleTimeMs: res.throttleTimeMs, items };
    },
    build,
  );
}
