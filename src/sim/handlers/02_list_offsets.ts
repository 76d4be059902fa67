// ListOffsets (2), v1-v11.
//
// timestamp -1 = latest (log end offset), -2 = earliest (log start offset), -3 = the
// offset of the largest timestamp (v7+); any other timestamp → the first offset whose
// batch max timestamp is >= it, or -1 when none. Only the leader answers: otherwise
// NOT_LEADER_OR_FOLLOWER (6); unknown topic or partition → 3. v10 (Kafka 4.0) adds timeout_ms,
// how long the broker may wait for remote (tiered) storage (KIP-1075): nothing is tiered here,
// so every answer is immediate. v11 (4.2) allows EARLIEST_PENDING_UPLOAD (-6, KIP-1023): the
// first offset not yet uploaded to remote storage; with no tiered storage here it is answered
// as LATEST_TIERED (-5) is, offset -1 and timestamp -1.
import {
  ListOffsetsRequestSchema,
  ListOffsetsResponseSchema,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
} from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { defineHandler } from './types.js';

const EARLIEST_PENDING_UPLOAD = -6n;

export const listOffsetsHandler = defineHandler<ListOffsetsRequest, ListOffsetsResponse>({
  apiKey: 2,
  name: 'ListOffsets',
  request: ListOffsetsRequestSchema,
  response: ListOffsetsResponseSchema,
  versions: [1, 11],
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const topics = req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        const base = { partitionIndex: p.partitionIndex, timestamp: -1n, offset: -1n, leaderEpoch: -1 };
        const partition = model.getTopic(t.name)?.partitions[p.partitionIndex];
        if (!partition) return { ...base, errorCode: 3 };
        if (partition.leader !== ctx.brokerId) return { ...base, errorCode: 6 };
        if (p.timestamp === EARLIEST_PENDING_UPLOAD && ctx.version >= 11)
          return { ...base, errorCode: 0, leaderEpoch: partition.leaderEpoch };
        try {
          const found = model.listOffset(t.name, p.partitionIndex, Number(p.timestamp));
          return {
            ...base,
            errorCode: 0,
            offset: BigInt(found.offset),
            timestamp: BigInt(found.timestamp),
            leaderEpoch: partition.leaderEpoch,
          };
        } catch (err) {
          if (!(err instanceof KafkaError)) throw err;
          return { ...base, errorCode: err.code };
        }
      }),
    }));
    return { throttleTimeMs: 0, topics };
  },
});
