// What Kafka 4.0-4.2 added to the message specs the shared copy (../shared/kafka-protocol/messages,
// apache/kafka trunk of 2024-10-25, the 4.0 line) predates, for the APIs the gateway sends at
// the newest version 4.2 accepts (issue 29): applied to a parsed spec by scripts/gen-protocol.ts
// (the simulator's codec) and scripts/kafka-grammar.ts (the grammar comments of src/kafka/apis),
// so both read Kafka 4.2's versions. Each change is the spec's own, named with its KIP; the
// release table (src/domain/kafka-api-versions-by-release.ts) says which release has which
// version.
//
// One deliberate difference: the lower end of validVersions stays where the shared copy has it.
// Kafka 4.0 raised it for many APIs (KIP-896: Produce 3, Fetch 4, ListOffsets 1), but the
// simulator also answers as releases before 4.0, whose brokers accept the older versions; the
// release table cuts each release's range anyway.

interface Field {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  ignorable?: boolean;
  about?: string;
  fields?: Field[];
}

interface Spec {
  name: string;
  validVersions: string;
  fields: Field[];
}

/** The newest version of each updated message, and what it added. */
const UPDATES: Record<string, { max: number; apply?: (fields: Field[]) => void }> = {
  // Produce v12 (4.0) is v11 (KIP-890: transactions V2); v13 (4.1) names topics by id (KIP-516),
  // a name the broker does not know answering UNKNOWN_TOPIC_ID.
  ProduceRequest: {
    max: 13,
    apply: (fields) => topicIdInsteadOfName(struct(fields, 'TopicData'), 'Name', 13, 'The unique topic ID'),
  },
  ProduceResponse: {
    max: 13,
    apply: (fields) => topicIdInsteadOfName(struct(fields, 'Responses'), 'Name', 13, 'The unique topic ID'),
  },
  // Fetch v18 (4.1): a follower's fetch carries the high-watermark it knows (KIP-1166), tagged.
  FetchRequest: {
    max: 18,
    apply: (fields) => {
      const partitions = struct(struct(fields, 'Topics'), 'Partitions');
      partitions.push({
        name: 'HighWatermark',
        type: 'int64',
        versions: '18+',
        default: '9223372036854775807',
        taggedVersions: '18+',
        tag: 1,
        ignorable: true,
        about:
          'The high-watermark known by the replica. -1 if the high-watermark is not known and 9223372036854775807 if the feature is not supported.',
      });
    },
  },
  FetchResponse: { max: 18 },
  // ListOffsets v10 (4.0, in the shared copy already): TimeoutMs for tiered storage (KIP-1075);
  // v11 (4.2): the EARLIEST_PENDING_UPLOAD timestamp -6 (KIP-1023), no new field.
  ListOffsetsRequest: { max: 11 },
  ListOffsetsResponse: { max: 11 },
  // Metadata v13 (4.0): a top-level error code (KIP-1102: REBOOTSTRAP_REQUIRED); the request is v12's.
  MetadataRequest: { max: 13 },
  MetadataResponse: {
    max: 13,
    apply: (fields) => {
      fields.push({
        name: 'ErrorCode',
        type: 'int16',
        versions: '13+',
        ignorable: true,
        about: 'The top-level error code, or 0 if there was no error.',
      });
    },
  },
  // DescribeCluster v2 (4.0): fenced brokers on request (KIP-1073).
  DescribeClusterRequest: {
    max: 2,
    apply: (fields) => {
      fields.push({
        name: 'IncludeFencedBrokers',
        type: 'bool',
        versions: '2+',
        default: 'false',
        about: 'Whether to include fenced brokers when listing brokers.',
      });
    },
  },
  DescribeClusterResponse: {
    max: 2,
    apply: (fields) => {
      struct(fields, 'Brokers').push({
        name: 'IsFenced',
        type: 'bool',
        versions: '2+',
        default: 'false',
        about: 'Whether the broker is fenced',
      });
    },
  },
  // AlterPartitionReassignments v1 (4.1): a reassignment may be refused when it changes the
  // replication factor (KIP-860); the response says whether that was allowed.
  AlterPartitionReassignmentsRequest: {
    max: 1,
    apply: (fields) => {
      insertAfter(fields, 'TimeoutMs', {
        name: 'AllowReplicationFactorChange',
        type: 'bool',
        versions: '1+',
        default: 'true',
        about:
          'The option indicating whether changing the replication factor of any given partition as part of this request is a valid move.',
      });
    },
  },
  AlterPartitionReassignmentsResponse: {
    max: 1,
    apply: (fields) => {
      insertAfter(fields, 'ThrottleTimeMs', {
        name: 'AllowReplicationFactorChange',
        type: 'bool',
        versions: '1+',
        default: 'true',
        ignorable: true,
        about: 'The option indicating whether changing the replication factor of any given partition as part of the request was allowed.',
      });
    },
  },
};

function struct(fields: Field[], name: string): Field[] {
  const f = fields.find((x) => x.name === name);
  if (!f?.fields) throw new Error(`spec update: no struct field ${name}`);
  return f.fields;
}

function insertAfter(fields: Field[], name: string, field: Field): void {
  const at = fields.findIndex((x) => x.name === name);
  if (at < 0) throw new Error(`spec update: no field ${name}`);
  fields.splice(at + 1, 0, field);
}

/** `name` up to version `from` - 1, then a topic id in its place (KIP-516). */
function topicIdInsteadOfName(fields: Field[], name: string, from: number, about: string): void {
  const f = fields.find((x) => x.name === name);
  if (!f || f.versions !== '0+') throw new Error(`spec update: ${name} is not a 0+ field`);
  f.versions = `0-${from - 1}`;
  f.ignorable = true;
  insertAfter(fields, name, { name: 'TopicId', type: 'uuid', versions: `${from}+`, ignorable: true, about });
}

/** `spec` with what Kafka 4.0-4.2 added to it (the spec itself when nothing was). Throws when the spec is not the one expected. */
export function updateSpec<S extends Spec>(spec: S): S {
  const update = UPDATES[spec.name];
  if (!update) return spec;
  const m = /^(\d+)-(\d+)$/.exec(spec.validVersions) ?? /^()(\d+)$/.exec(spec.validVersions);
  if (!m) throw new Error(`spec update: ${spec.name} has validVersions ${spec.validVersions}`);
  const max = Number(m[2]);
  if (max >= update.max) return spec; // a newer copy of the specs: nothing to add
  const min = m[1] === '' ? max : Number(m[1]);
  const copy = structuredClone(spec);
  copy.validVersions = `${min}-${update.max}`;
  update.apply?.(copy.fields);
  return copy;
}
