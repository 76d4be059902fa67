// Produce (0), v3-v13 (record batch v2, the only format since Kafka 4.0... and the
// only one modern clients write). v12 (Kafka 4.0) is v11 (KIP-890's transactions V2 only).
// v13 (4.1) names each topic by id instead of name (KIP-516); as KafkaApis.handleProduceRequest
// does, the id is looked up in the metadata (metadataCache.getTopicName) and an id the broker
// does not know answers UNKNOWN_TOPIC_ID (100) for each of its partitions; the response names
// the topic by the same id.
//
// Appends each partition's record batches to the partition log, assigning offsets;
// answers base_offset per partition. The receiving broker must lead the partition,
// else NOT_LEADER_OR_FOLLOWER (6) (v10+ also names the current leader); unknown topic
// or partition → UNKNOWN_TOPIC_OR_PARTITION (3); a batch that is not magic v2 →
// CORRUPT_MESSAGE (2). acks=0 gets no response at all, and when any partition failed Kafka
// closes the connection instead, the only way to tell the producer (KafkaApis
// .handleProduceRequest, sendResponseCallback: acks == 0 && errorInResponse ->
// requestHelper.closeConnection; the producer then refreshes its metadata); acks other than -1, 0 and 1 →
// INVALID_REQUIRED_ACKS (21) for every partition and nothing appended (ReplicaManager
// .appendRecords). acks=-1 needs min.insync.replicas in the ISR. Transactions are not simulated.
import { ProduceRequestSchema, ProduceResponseSchema, type ProduceRequest, type ProduceResponse } from '../protocol/messages.generated.js';
import { KafkaError } from '../cluster/errors.js';
import { itemError } from './results.js';
import { defineHandler } from './types.js';

const MAGIC_OFFSET = 16;
const VALID_ACKS = new Set([-1, 0, 1]);

export const produceHandler = defineHandler<ProduceRequest, ProduceResponse>({
  apiKey: 0,
  name: 'Produce',
  request: ProduceRequestSchema,
  response: ProduceResponseSchema,
  versions: [3, 13],
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const byId = ctx.version >= 13;
    const responses = req.topicData.map((t) => {
      const name = byId ? model.getTopicById(t.topicId ?? '')?.name : t.name;
      return {
        name: t.name ?? '',
        topicId: t.topicId,
        partitionResponses: t.partitionData.map((p) => {
          const base = { index: p.index, baseOffset: -1n, logAppendTimeMs: -1n, logStartOffset: -1n, recordErrors: [], errorMessage: null };
          if (name === undefined) return { ...base, errorCode: 100 }; // UNKNOWN_TOPIC_ID (v13+)
          if (!VALID_ACKS.has(req.acks)) return { ...base, errorCode: 21 };
          const partition = model.getTopic(name)?.partitions[p.index];
          if (!partition) return { ...base, errorCode: 3 };
          if (partition.leader !== ctx.brokerId) {
            return { ...base, errorCode: 6, currentLeader: { leaderId: partition.leader, leaderEpoch: partition.leaderEpoch } };
          }
          const records = p.records ?? Buffer.alloc(0);
          if (records.length > MAGIC_OFFSET && records[MAGIC_OFFSET] !== 2)
            return { ...base, errorCode: 2, errorMessage: 'Only record batch format v2 is supported.' };
          try {
            const baseOffset = model.append(name, p.index, records, { acks: req.acks });
            return { ...base, errorCode: 0, baseOffset: BigInt(baseOffset), logStartOffset: 0n };
          } catch (err) {
            if (!(err instanceof KafkaError)) throw err;
            return { ...base, errorCode: itemError(err).errorCode, errorMessage: err.message };
          }
        }),
      };
    });
    if (req.acks === 0) {
      if (responses.some((t) => t.partitionResponses.some((p) => p.errorCode !== 0))) ctx.conn.closeAfterResponse = true;
      return null;
    }
    return { responses, throttleTimeMs: 0 };
  },
});
