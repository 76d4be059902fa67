// AlterPartitionReassignments v0 (KIP-455), sent to the controller. It answers per partition
// (unknown topic/partition 3, bad replica list 39, cancel of a partition not moving 85); a
// top-level error (e.g. 31 without ALTER on CLUSTER) fails the whole call and is thrown.
// `replicas: null` cancels a move.
/*
  AlterPartitionReassignments Request (Version: 0) => timeout_ms [topics] TAG_BUFFER
    timeout_ms => INT32
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index [replicas] TAG_BUFFER
        partition_index => INT32
        replicas => INT32

  AlterPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message [responses] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    error_message => COMPACT_NULLABLE_STRING
    responses => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index error_code error_message TAG_BUFFER
        partition_index => INT32
        error_code => INT16
        error_message => COMPACT_NULLABLE_STRING
*/
// Encoded and decoded here, not by the client: the client's Writer appends a Buffer per field
// and its parser builds an object per partition, ~100 MiB of garbage for the 100,000 moves of a
// large start (allocation profile); here a request is one Buffer sized in advance, and the
// answer is read straight into the results, in request order.
import { alterPartitionReassignmentsV0 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import type { WireReader } from '../wire/reader.js';
import { undecodedApi } from '../wire/undecoded.js';
import { compactStringSize, int32ArraySize, uvarintSize, WireWriter } from '../wire/writer.js';
import { groupByTopic, type PartitionRef } from './list-partition-reassignments-v0.js';
import { at, GATEWAY_APIS } from './versions.js';

export interface PartitionMove extends PartitionRef {
  /** The target replicas; null cancels the move in progress. */
  replicas: readonly number[] | null;
}

export type PartitionMoveResult = PartitionRef & ({ ok: true } | { ok: false; error: KafkaErrorInfo });

/** The request body: `topics` in order, each with its moves in order. */
export function encodeAlterPartitionReassignmentsRequest(timeoutMs: number, topics: readonly (readonly [string, readonly PartitionMove[]])[]): Buffer {
  let size = 4 + uvarintSize(topics.length + 1) + 1;
  for (const [name, ps] of topics) {
    size += compactStringSize(name) + uvarintSize(ps.length + 1) + 1;
    for (let i = 0; i < ps.length; i++) {
      const r = ps[i]!.replicas;
      size += 4 + (r === null ? 1 : int32ArraySize(r.length)) + 1;
    }
  }
  const w = new WireWriter(size).int32(timeoutMs).compactLength(topics.length);
  for (const [name, ps] of topics) {
    w.compactString(name).compactLength(ps.length);
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i]!;
      w.int32(p.partition);
      if (p.replicas === null) w.compactLength(-1);
      else w.int32Array(p.replicas);
      w.noTaggedFields();
    }
    w.noTaggedFields();
  }
  return w.noTaggedFields().done();
}

/** A move Kafka's answer does not mention (not an error code: those are INT16). */
export const NOT_ANSWERED = 1 << 30;

/** What the answer says: the top-level error, and per requested partition (by index into the moves) its error code and message (code 0: accepted). */
export interface AlterAnswer {
  errorCode: number;
  errorMessage: string | null;
  /** Per move, in request order: its error code, NOT_ANSWERED when Kafka did not answer for it. */
  codes: Int32Array;
  /** Messages of the refused ones, by index into the moves. */
  messages: Map<number, string | null>;
}

/**
 * The response after its header. `topics` is what was sent (grouped, in order); `index` maps a
 * topic's k-th move to its index in the caller's list. Kafka answers in request order, checked
 * per partition; another order is matched through a map of that topic's partitions.
 */
export function decodeAlterPartitionReassignmentsAnswer(r: WireReader, topics: ReadonlyMap<string, readonly PartitionMove[]>, index: ReadonlyMap<string, readonly number[]>, count: number): AlterAnswer {
  r.int32(); // throttle_time_ms
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const codes = new Int32Array(count).fill(NOT_ANSWERED);
  const messages = new Map<number, string | null>();
  const topicCount = r.compactLength();
  for (let t = 0; t < topicCount; t++) {
    const name = r.compactString();
    const sent = topics.get(name);
    const at = index.get(name);
    const partitionCount = r.compactLength();
    let byPartition: Map<number, number> | undefined;
    for (let k = 0; k < partitionCount; k++) {
      const partition = r.int32();
      const code = r.int16();
      const message = r.compactNullableString();
      r.skipTaggedFields();
      if (!sent || !at) continue; // a topic that was not asked about
      let i: number | undefined;
      if (k < sent.length && sent[k]!.partition === partition) i = at[k];
      else {
        if (!byPartition) {
          byPartition = new Map();
          for (let j = 0; j < sent.length; j++) byPartition.set(sent[j]!.partition, at[j]!);
        }
        i = byPartition.get(partition);
      }
      if (i === undefined) continue;
      codes[i] = code;
      if (code !== 0) messages.set(i, message);
    }
    r.skipTaggedFields();
  }
  r.skipTaggedFields();
  return { errorCode, errorMessage, codes, messages };
}

const alterApi = undecodedApi(alterPartitionReassignmentsV0.api.key, alterPartitionReassignmentsV0.api.version);

/** Starts (or, with null replicas, cancels) moves; one result per requested partition, in request order. */
export async function alterPartitionReassignments(kafka: RequestSender, moves: PartitionMove[]): Promise<PartitionMoveResult[]> {
  if (moves.length === 0) return [];
  const topics = groupByTopic(moves);
  const index = new Map<string, number[]>();
  for (let i = 0; i < moves.length; i++) {
    const list = index.get(moves[i]!.topic);
    if (list) list.push(i);
    else index.set(moves[i]!.topic, [i]);
  }
  const body = encodeAlterPartitionReassignmentsRequest(kafka.requestTimeoutMs, [...topics]);
  // Decoded once per answer (the metrics label reads it first); a retried request is another answer.
  const decoded = new WeakMap<WireReader, AlterAnswer>();
  const decode = (r: WireReader): AlterAnswer => {
    try {
      let a = decoded.get(r);
      if (!a) decoded.set(r, (a = decodeAlterPartitionReassignmentsAnswer(r, topics, index, moves.length)));
      return a;
    } catch (err) {
      throw toKafkaRequestError(err, { api: 'AlterPartitionReassignments' }); // a malformed answer, as when the client's parser threw
    }
  };
  const res = await kafka.sendRequest(
    'AlterPartitionReassignments',
    'controller',
    async (conn) => (await at(conn, GATEWAY_APIS.AlterPartitionReassignments, alterApi)).async(conn, body),
    // The metrics label: the top-level error, else the first partition's error, else NONE.
    (raw) => {
      if (raw.errorCode !== 0) return kafkaErrorName(raw.errorCode);
      let a: AlterAnswer;
      try {
        a = decode(raw.answer);
      } catch {
        return kafkaErrorName(-1); // malformed: thrown below, where the caller sees it
      }
      for (let i = 0; i < a.codes.length; i++) if (a.codes[i]! !== 0 && a.codes[i]! !== NOT_ANSWERED) return kafkaErrorName(a.codes[i]!);
      return NONE;
    },
    // A start lost under its connection may have been applied: re-sent, it could restart a move
    // cancelled meanwhile (issue 28). The pacer's next holder reads what Kafka shows instead.
    // Cancels are re-sent: cancelling twice changes nothing.
    { resendInDoubt: moves.every((m) => m.replicas === null) },
  );
  const a = decode(res.answer);
  if (a.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(a.errorCode, a.errorMessage));
  const out: PartitionMoveResult[] = new Array(moves.length);
  for (let i = 0; i < moves.length; i++) {
    const m = moves[i]!;
    const code = a.codes[i]!;
    out[i] =
      code === 0
        ? { topic: m.topic, partition: m.partition, ok: true }
        : code === NOT_ANSWERED
          ? { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(-1, 'No result for this partition in the response') }
          : { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(code, a.messages.get(i)) };
  }
  return out;
}
