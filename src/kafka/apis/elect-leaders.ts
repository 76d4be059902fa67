// ElectLeaders v0-v2 (KIP-183, KIP-460), sent to the controller (a KRaft broker forwards it; a
// ZooKeeper-mode broker that is not the controller answers NOT_CONTROLLER per partition, which
// the caller re-sends once the transport has re-learned the controller). Per partition: 0
// elected, 84 ELECTION_NOT_NEEDED, 80 PREFERRED_LEADER_NOT_AVAILABLE, 83
// ELIGIBLE_LEADERS_NOT_AVAILABLE, 3 UNKNOWN_TOPIC_OR_PARTITION; a top-level error (v1+: e.g. 42
// for an unknown election type, 31 without ALTER on CLUSTER) is returned with the rest. Kafka
// 2.8 to 4.2 accept v0-v2; this module speaks v0-v2 and sends v2 unless the caller names
// another version (the transport's negotiation, issue 29, passes the negotiated one).
/*
  ElectLeaders Request (Version: 2) => election_type [topic_partitions] timeout_ms TAG_BUFFER
    election_type => INT8
    topic_partitions => topic [partitions] TAG_BUFFER
      topic => COMPACT_STRING
      partitions => INT32
    timeout_ms => INT32

  ElectLeaders Response (Version: 2) => throttle_time_ms error_code [replica_election_results] TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    replica_election_results => topic [partition_result] TAG_BUFFER
      topic => COMPACT_STRING
      partition_result => partition_id error_code error_message TAG_BUFFER
        partition_id => INT32
        error_code => INT16
        error_message => COMPACT_NULLABLE_STRING
*/
// v1: the same fields in non-flexible forms (STRING, ARRAY with an INT32 length, no TAG_BUFFER):
/*
  ElectLeaders Request (Version: 1) => election_type [topic_partitions] timeout_ms
    election_type => INT8
    topic_partitions => topic [partitions]
      topic => STRING
      partitions => INT32
    timeout_ms => INT32

  ElectLeaders Response (Version: 1) => throttle_time_ms error_code [replica_election_results]
    throttle_time_ms => INT32
    error_code => INT16
    replica_election_results => topic [partition_result]
      topic => STRING
      partition_result => partition_id error_code error_message
        partition_id => INT32
        error_code => INT16
        error_message => NULLABLE_STRING
*/
// v0: no election_type (always preferred) and no top-level error_code:
/*
  ElectLeaders Request (Version: 0) => [topic_partitions] timeout_ms
    topic_partitions => topic [partitions]
      topic => STRING
      partitions => INT32
    timeout_ms => INT32

  ElectLeaders Response (Version: 0) => throttle_time_ms [replica_election_results]
    throttle_time_ms => INT32
    replica_election_results => topic [partition_result]
      topic => STRING
      partition_result => partition_id error_code error_message
        partition_id => INT32
        error_code => INT16
        error_message => NULLABLE_STRING
*/
// Encoded and decoded here (one Buffer sized in advance, the answer read straight into a flat
// list), as the other large requests are: an election of every partition answers about up to
// 100,000 of them.
import { KafkaRequestError } from '../errors.js';
import { kafkaErrorInfo, kafkaErrorName, NONE, toKafkaRequestError } from '../errors-map.js';
import type { RequestSender } from '../request.js';
import { createAPI } from '@platformatic/kafka';
import { MalformedResponseError, WireReader } from '../wire/reader.js';
import { compactStringSize, payloadOf, uvarintSize, WireWriter } from '../wire/writer.js';
import type { PartitionRef } from './list-partition-reassignments-v0.js';
import { GATEWAY_APIS, versionFor } from './versions.js';

export const ELECT_LEADERS_KEY = 43;
export const ELECT_LEADERS_VERSIONS = [0, 1, 2] as const;
export type ElectLeadersVersion = (typeof ELECT_LEADERS_VERSIONS)[number];
/** The version sent unless the caller says otherwise (every release the gateway supports has it). */
export const DEFAULT_ELECT_LEADERS_VERSION: ElectLeadersVersion = 2;

export type ElectionType = 'preferred' | 'unclean';
const TYPE_CODES: Record<ElectionType, number> = { preferred: 0, unclean: 1 };

/** One partition's answer: code 0 = a leader was elected. */
export interface PartitionElection extends PartitionRef {
  errorCode: number;
  errorMessage: string | null;
}

export interface ElectLeadersAnswer {
  throttleTimeMs: number;
  /** v1+; 0 for v0, which has none. */
  errorCode: number;
  /** Per partition, in the order of the answer. */
  partitions: PartitionElection[];
}

const NOT_CONTROLLER = 41;
const isFlexible = (version: number): boolean => version >= 2;
const strSize = (s: string, flexible: boolean): number => (flexible ? compactStringSize(s) : 2 + Buffer.byteLength(s, 'utf8'));
const arrayLengthSize = (n: number, flexible: boolean): number => (flexible ? uvarintSize(n + 1) : 4);

/**
 * The request body in `version`: `topics` grouped by topic, in order; null = every partition.
 * v0 carries no election type: only 'preferred' can be sent in it (as Kafka's
 * ElectLeadersRequest.Builder refuses otherwise).
 */
export function encodeElectLeadersRequest(
  version: number,
  type: ElectionType,
  topics: readonly (readonly [string, readonly number[]])[] | null,
  timeoutMs: number,
): Buffer {
  if (!ELECT_LEADERS_VERSIONS.includes(version as ElectLeadersVersion))
    throw new RangeError(`ElectLeaders v${version} is not supported (v0-v2)`);
  if (version === 0 && type !== 'preferred') throw new RangeError('ElectLeaders v0 only supports preferred elections');
  const flexible = isFlexible(version);
  let size = (version >= 1 ? 1 : 0) + 4 + (flexible ? 1 : 0);
  size += topics === null ? arrayLengthSize(-1, flexible) : arrayLengthSize(topics.length, flexible);
  for (const [name, ps] of topics ?? [])
    size += strSize(name, flexible) + arrayLengthSize(ps.length, flexible) + 4 * ps.length + (flexible ? 1 : 0);
  const w = new WireWriter(size);
  if (version >= 1) w.int8(TYPE_CODES[type]);
  const length = (n: number) => (flexible ? w.compactLength(n) : w.int32(n));
  if (topics === null) length(-1);
  else {
    length(topics.length);
    for (const [name, ps] of topics) {
      if (flexible) w.compactString(name);
      else {
        const n = Buffer.byteLength(name, 'utf8');
        w.int16(n).utf8(name, n);
      }
      length(ps.length);
      for (const p of ps) w.int32(p);
      if (flexible) w.noTaggedFields();
    }
  }
  w.int32(timeoutMs);
  if (flexible) w.noTaggedFields();
  return w.done();
}

function readString(r: WireReader, flexible: boolean): string | null {
  if (flexible) return r.compactNullableString();
  const n = r.int16();
  if (n < 0) return null;
  if (n > r.remaining) throw new MalformedResponseError('response ends inside a string');
  const s = r.buf.toString('utf8', r.pos, r.pos + n);
  r.skip(n);
  return s;
}

function readLength(r: WireReader, flexible: boolean): number {
  const n = flexible ? r.compactLength() : r.int32();
  if (n > r.remaining) throw new MalformedResponseError('array longer than the response');
  return n;
}

/** The response (after its header) in `version`. A null array reads as empty. */
export function decodeElectLeadersResponse(r: WireReader, version: number): ElectLeadersAnswer {
  const flexible = isFlexible(version);
  const throttleTimeMs = r.int32();
  const errorCode = version >= 1 ? r.int16() : 0;
  const partitions: PartitionElection[] = [];
  const topicCount = readLength(r, flexible);
  for (let t = 0; t < topicCount; t++) {
    const topic = readString(r, flexible) ?? '';
    const n = readLength(r, flexible);
    for (let k = 0; k < n; k++) {
      const partition = r.int32();
      const code = r.int16();
      const message = readString(r, flexible);
      if (flexible) r.skipTaggedFields();
      partitions.push({ topic, partition, errorCode: code, errorMessage: message });
    }
    if (flexible) r.skipTaggedFields();
  }
  if (flexible) r.skipTaggedFields();
  return { throttleTimeMs, errorCode, partitions };
}

/** Groups partitions by topic, topics in first-seen order, partitions in order. */
export function groupPartitions(partitions: readonly PartitionRef[]): [string, number[]][] {
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) {
    const list = byTopic.get(p.topic);
    if (list) list.push(p.partition);
    else byTopic.set(p.topic, [p.partition]);
  }
  return [...byTopic];
}

// createAPI per version: the request header has tagged fields (v2) only in flexible versions,
// and so has the response header.
// The answer's bytes are handed back as they are (a WireReader) and decoded here.
const apis = new Map(
  ELECT_LEADERS_VERSIONS.map(
    (v) =>
      [
        v,
        createAPI<[body: Buffer], WireReader>(
          ELECT_LEADERS_KEY,
          v,
          payloadOf,
          (_c, _k, _v, reader) => WireReader.fromClientReader(reader),
          isFlexible(v),
          isFlexible(v),
        ),
      ] as const,
  ),
);

/**
 * One ElectLeaders request to the controller. `partitions` null = every partition of the
 * cluster (Kafka then leaves out those that needed no election). Returns the answer as it
 * came; a top-level error is in `errorCode`, for the caller to throw or report.
 */
export async function electLeaders(
  kafka: RequestSender,
  type: ElectionType,
  partitions: readonly PartitionRef[] | null,
  opts: { version?: ElectLeadersVersion; timeoutMs?: number } = {},
): Promise<ElectLeadersAnswer> {
  const version = opts.version ?? DEFAULT_ELECT_LEADERS_VERSION;
  const body = encodeElectLeadersRequest(
    version,
    type,
    partitions === null ? null : groupPartitions(partitions),
    opts.timeoutMs ?? kafka.requestTimeoutMs,
  );
  const api = apis.get(version)!;
  const decoded = new WeakMap<WireReader, ElectLeadersAnswer>();
  const decode = (r: WireReader): ElectLeadersAnswer => {
    let a = decoded.get(r);
    if (!a) {
      try {
        a = decodeElectLeadersResponse(r, version);
      } catch (err) {
        throw toKafkaRequestError(err, { api: 'ElectLeaders' });
      }
      decoded.set(r, a);
    }
    return a;
  };
  const answer = await kafka.sendRequest(
    'ElectLeaders',
    'controller',
    async (conn) => {
      // Sent only at a version this broker advertises (v2 by default; every release 2.8-4.2 has
      // 0-2), else UNSUPPORTED_VERSION with nothing sent, as every other API (versions.ts).
      await versionFor(conn, { ...GATEWAY_APIS.ElectLeaders, min: version, max: version });
      const raw = await api.async(conn, body);
      // A ZooKeeper-mode broker that is not the controller answers NOT_CONTROLLER for every
      // partition: thrown, so that the transport re-learns the controller and sends it again.
      const a = decode(raw);
      if (a.partitions.length > 0 && a.partitions.every((p) => p.errorCode === NOT_CONTROLLER)) {
        throw new KafkaRequestError('kafka', kafkaErrorInfo(NOT_CONTROLLER, a.partitions[0].errorMessage));
      }
      return raw;
    },
    // The metrics label: the top-level error, else the first partition error that is not "no
    // election needed" (an answer, not a failure), else NONE.
    (raw) => {
      let a: ElectLeadersAnswer;
      try {
        a = decode(raw);
      } catch {
        return kafkaErrorName(-1);
      }
      if (a.errorCode !== 0) return kafkaErrorName(a.errorCode);
      for (const p of a.partitions) if (p.errorCode !== 0 && p.errorCode !== 84) return kafkaErrorName(p.errorCode);
      return NONE;
    },
  );
  return decode(answer);
}
