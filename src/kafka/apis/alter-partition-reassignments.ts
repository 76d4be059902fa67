// AlterPartitionReassignments v0-v1 (KIP-455; the version negotiated with the broker,
// ./versions.ts: Kafka 2.8-4.0 accept v0, 4.1+ v1), sent to the controller. It answers per
// partition (unknown topic/partition 3, bad replica list 39, cancel of a partition not moving 85,
// with v1 and allowReplicationFactorChange false a target that changes the replication factor
// 38); a top-level error (e.g. 31 without ALTER on CLUSTER) fails the whole call and is thrown.
// `replicas: null` cancels a move.
// v0 is v1 without allow_replication_factor_change (KIP-860), in the request after timeout_ms
// and in the response after throttle_time_ms: a v0 broker always allows the change. The
// gateway's own moves may change a replication factor (true, v0's behaviour); a caller that asks
// for false from a broker that only speaks v0 gets UNSUPPORTED_VERSION and nothing is sent, as
// Kafka's AlterPartitionReassignmentsRequest.Builder refuses it. v1 in full:
/*
  AlterPartitionReassignments Request (Version: 1) => timeout_ms allow_replication_factor_change [topics] TAG_BUFFER
    timeout_ms => INT32
    allow_replication_factor_change => BOOLEAN
    topics => name [partitions] TAG_BUFFER
      name => COMPACT_STRING
      partitions => partition_index [replicas] TAG_BUFFER
        partition_index => INT32
        replicas => INT32

  AlterPartitionReassignments Response (Version: 1) => throttle_time_ms allow_replication_factor_change error_code error_message [responses] TAG_BUFFER
    throttle_time_ms => INT32
    allow_replication_factor_change => BOOLEAN
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
import { createAPI } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { ERROR_CODES, kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import type { KafkaErrorInfo } from '../types.js';
import { WireReader } from '../wire/reader.js';
import type { UndecodedAnswer } from '../wire/undecoded.js';
import { compactStringSize, int32ArraySize, payloadOf, uvarintSize, WireWriter } from '../wire/writer.js';
import { groupByTopic, type PartitionRef } from './list-partition-reassignments-v0.js';
import { GATEWAY_APIS, versionFor } from './versions.js';

export interface PartitionMove extends PartitionRef {
  /** The target replicas; null cancels the move in progress. */
  replicas: readonly number[] | null;
}

export type PartitionMoveResult = PartitionRef & ({ ok: true } | { ok: false; error: KafkaErrorInfo });

/**
 * The request body: `topics` in order, each with its moves in order. `allowReplicationFactorChange`
 * null: v0 (no such field); true or false: v1.
 */
export function encodeAlterPartitionReassignmentsRequest(
  timeoutMs: number,
  topics: readonly (readonly [string, readonly PartitionMove[]])[],
  allowReplicationFactorChange: boolean | null = null,
): Buffer {
  let size = 4 + (allowReplicationFactorChange === null ? 0 : 1) + uvarintSize(topics.length + 1) + 1;
  for (const [name, ps] of topics) {
    size += compactStringSize(name) + uvarintSize(ps.length + 1) + 1;
    for (let i = 0; i < ps.length; i++) {
      const r = ps[i].replicas;
      size += 4 + (r === null ? 1 : int32ArraySize(r.length)) + 1;
    }
  }
  const w = new WireWriter(size).int32(timeoutMs);
  if (allowReplicationFactorChange !== null) w.bool(allowReplicationFactorChange);
  w.compactLength(topics.length);
  for (const [name, ps] of topics) {
    w.compactString(name).compactLength(ps.length);
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
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

/** What the answer says: the top-level error, (v1) whether a replication factor change was allowed, and per requested partition (by index into the moves) its error code and message (code 0: accepted). */
export interface AlterAnswer {
  errorCode: number;
  errorMessage: string | null;
  /** v1's allow_replication_factor_change (true in v0, where the change is always allowed). */
  allowReplicationFactorChange: boolean;
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
export function decodeAlterPartitionReassignmentsAnswer(
  r: WireReader,
  topics: ReadonlyMap<string, readonly PartitionMove[]>,
  index: ReadonlyMap<string, readonly number[]>,
  count: number,
  version = 0,
): AlterAnswer {
  r.int32(); // throttle_time_ms
  const allowReplicationFactorChange = version >= 1 ? r.bool() : true;
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
      if (k < sent.length && sent[k].partition === partition) i = at[k];
      else {
        if (!byPartition) {
          byPartition = new Map();
          for (let j = 0; j < sent.length; j++) byPartition.set(sent[j].partition, at[j]);
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
  return { errorCode, errorMessage, allowReplicationFactorChange, codes, messages };
}

/** The answer's bytes, with its top-level error code read for the transport's metrics label (after throttle_time_ms, and v1's boolean). */
const alterAt = (version: 0 | 1) =>
  createAPI<[body: Buffer], UndecodedAnswer>(
    GATEWAY_APIS.AlterPartitionReassignments.key,
    version,
    payloadOf,
    (_correlationId, _apiKey, _apiVersion, reader) => {
      const answer = WireReader.fromClientReader(reader);
      return { errorCode: answer.buf.readInt16BE(answer.pos + 4 + version), answer };
    },
  );
const ALTER_BY_VERSION = { 0: alterAt(0), 1: alterAt(1) };

/**
 * Starts (or, with null replicas, cancels) moves; one result per requested partition, in request
 * order. `allowReplicationFactorChange` false (v1, Kafka 4.1+) has Kafka refuse each target that
 * changes its partition's replication factor (38); a broker that only speaks v0 cannot be asked
 * that: UNSUPPORTED_VERSION, nothing sent.
 */
export async function alterPartitionReassignments(
  kafka: RequestSender,
  moves: PartitionMove[],
  opts: { allowReplicationFactorChange?: boolean } = {},
): Promise<PartitionMoveResult[]> {
  if (moves.length === 0) return [];
  const allowReplicationFactorChange = opts.allowReplicationFactorChange ?? true;
  const topics = groupByTopic(moves);
  const index = new Map<string, number[]>();
  for (let i = 0; i < moves.length; i++) {
    const list = index.get(moves[i].topic);
    if (list) list.push(i);
    else index.set(moves[i].topic, [i]);
  }
  const grouped = [...topics];
  // One body per version, made once (a retried request re-sends the same bytes).
  const bodies: (Buffer | undefined)[] = [];
  const bodyAt = (version: 0 | 1): Buffer =>
    (bodies[version] ??= encodeAlterPartitionReassignmentsRequest(
      kafka.requestTimeoutMs,
      grouped,
      version === 0 ? null : allowReplicationFactorChange,
    ));
  // Decoded once per answer (the metrics label reads it first); a retried request is another answer.
  const decoded = new WeakMap<WireReader, AlterAnswer>();
  const versions = new WeakMap<WireReader, number>();
  const decode = (r: WireReader): AlterAnswer => {
    try {
      let a = decoded.get(r);
      if (!a) decoded.set(r, (a = decodeAlterPartitionReassignmentsAnswer(r, topics, index, moves.length, versions.get(r) ?? 0)));
      return a;
    } catch (err) {
      throw toKafkaRequestError(err, { api: 'AlterPartitionReassignments' }); // a malformed answer, as when the client's parser threw
    }
  };
  const res = await kafka.sendRequest(
    'AlterPartitionReassignments',
    'controller',
    async (conn) => {
      const version = (await versionFor(conn, GATEWAY_APIS.AlterPartitionReassignments)) as 0 | 1;
      if (version === 0 && !allowReplicationFactorChange) {
        throw new KafkaRequestError(
          'kafka',
          kafkaErrorInfo(
            ERROR_CODES.UNSUPPORTED_VERSION,
            'The broker does not support the AllowReplicationFactorChange option for the AlterPartitionReassignments API (Kafka 4.1 or later): nothing was sent',
          ),
        );
      }
      const res = await ALTER_BY_VERSION[version].async(conn, bodyAt(version));
      versions.set(res.answer, version);
      return res;
    },
    // The metrics label: the top-level error, else the first partition's error, else NONE.
    (raw) => {
      if (raw.errorCode !== 0) return kafkaErrorName(raw.errorCode);
      let a: AlterAnswer;
      try {
        a = decode(raw.answer);
      } catch {
        return kafkaErrorName(-1); // malformed: thrown below, where the caller sees it
      }
      for (let i = 0; i < a.codes.length; i++) if (a.codes[i] !== 0 && a.codes[i] !== NOT_ANSWERED) return kafkaErrorName(a.codes[i]);
      return NONE;
    },
    // A start lost under its connection may have been applied: re-sent, it could restart a move
    // cancelled meanwhile (issue 28). The pacer's next holder reads what Kafka shows instead.
    // Cancels are re-sent: cancelling twice changes nothing.
    { resendInDoubt: moves.every((m) => m.replicas === null) },
  );
  const a = decode(res.answer);
  if (a.errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(a.errorCode, a.errorMessage));
  const out = new Array<PartitionMoveResult>(moves.length);
  for (let i = 0; i < moves.length; i++) {
    const m = moves[i];
    const code = a.codes[i];
    out[i] =
      code === 0
        ? { topic: m.topic, partition: m.partition, ok: true }
        : code === NOT_ANSWERED
          ? { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(-1, 'No result for this partition in the response') }
          : { topic: m.topic, partition: m.partition, ok: false, error: kafkaErrorInfo(code, a.messages.get(i)) };
  }
  return out;
}
