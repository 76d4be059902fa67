// Fetch (1), v4-v18, for consumers (replica fetches are not simulated: replication
// happens inside the model).
//
// Returns whole record batches from fetch_offset on, at least one batch even when it
// is larger than the limits (as Kafka does, so a consumer always makes progress). With
// no data it waits up to max_wait_ms for some (capped at 1 s to keep tests brisk).
// Not the leader → NOT_LEADER_OR_FOLLOWER (6); offset past the end →
// OFFSET_OUT_OF_RANGE (1); unknown topic → 3, unknown topic id (v13+) →
// UNKNOWN_TOPIC_ID (100). Fetch sessions (KIP-227) are not kept: session_id 0, every
// fetch is a full fetch, which clients accept. v13+ names topics by id only. v18 (Kafka 4.1)
// adds only a follower's tagged high_watermark to each partition (KIP-1166), which a consumer
// does not send: a v18 fetch is answered as a v17 one.
import { FetchRequestSchema, FetchResponseSchema, type FetchRequest, type FetchResponse } from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { defineHandler, type RequestContext } from './types.js';

type PartitionOut = FetchResponse['responses'][number]['partitions'][number];
const MAX_WAIT_CAP_MS = 1000;

function readAll(ctx: RequestContext, req: FetchRequest): { responses: FetchResponse['responses']; bytes: number } {
  const { model } = ctx.runtime;
  let bytes = 0;
  let budget = req.maxBytes ?? 0x7fffffff;
  const responses = req.topics.map((t) => {
    const topic = ctx.version >= 13 ? model.getTopicById(t.topicId ?? '') : model.getTopic(t.topic ?? '');
    const partitions = t.partitions.map((p): PartitionOut => {
      const base = {
        partitionIndex: p.partition,
        highWatermark: -1n,
        lastStableOffset: -1n,
        logStartOffset: -1n,
        abortedTransactions: null,
        preferredReadReplica: -1,
        records: null,
      };
      if (!topic) return { ...base, errorCode: ctx.version >= 13 ? 100 : 3 };
      const partition = topic.partitions[p.partition];
      if (!partition) return { ...base, errorCode: 3 };
      if (partition.leader !== ctx.brokerId) {
        return { ...base, errorCode: 6, currentLeader: { leaderId: partition.leader, leaderEpoch: partition.leaderEpoch } };
      }
      try {
        const out = model.read(topic.name, p.partition, Number(p.fetchOffset), Math.min(p.partitionMaxBytes, budget));
        budget = Math.max(0, budget - out.records.length);
        bytes += out.records.length;
        const hw = BigInt(out.highWatermark);
        return {
          ...base,
          errorCode: 0,
          highWatermark: hw,
          lastStableOffset: hw,
          logStartOffset: BigInt(out.logStartOffset),
          records: out.records,
        };
      } catch (err) {
        if (!(err instanceof KafkaError)) throw err;
        return { ...base, errorCode: err.code };
      }
    });
    return { topic: topic?.name ?? t.topic ?? '', topicId: t.topicId ?? 'AAAAAAAAAAAAAAAAAAAAAA', partitions };
  });
  return { responses, bytes };
}

export const fetchHandler = defineHandler<FetchRequest, FetchResponse>({
  apiKey: 1,
  name: 'Fetch',
  request: FetchRequestSchema,
  response: FetchResponseSchema,
  versions: [4, 18],
  async handle(ctx, req) {
    const deadline = Date.now() + Math.min(req.maxWaitMs, MAX_WAIT_CAP_MS);
    let out = readAll(ctx, req);
    // Long poll: wall-clock time on purpose, the injectable clock is for quotas and
    // progress, and a manual clock would make consumers spin.
    while (out.bytes < Math.max(1, req.minBytes) && Date.now() < deadline && !ctx.conn.closed) {
      await new Promise((r) => setTimeout(r, 10));
      out = readAll(ctx, req);
    }
    return { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: out.responses };
  },
});
