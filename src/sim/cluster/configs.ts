// Config definitions: Kafka's topic configs (LogConfig / TopicConfig) and a sensible set of
// dynamic broker configs (DynamicBrokerConfig), with ConfigDef-style parsing and validation.

/** DescribeConfigsResponse ConfigType ids. */
export const ConfigType = {
  UNKNOWN: 0,
  BOOLEAN: 1,
  STRING: 2,
  INT: 3,
  SHORT: 4,
  LONG: 5,
  DOUBLE: 6,
  LIST: 7,
  CLASS: 8,
  PASSWORD: 9,
} as const;
export type ConfigTypeName = Exclude<keyof typeof ConfigType, 'UNKNOWN'>;

/** DescribeConfigsResponse ConfigSource ids (DescribeConfigsResponse.ConfigSource in Kafka). */
export const ConfigSource = {
  UNKNOWN: 0,
  TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
} as const;

/** ConfigResource.Type ids used on the wire. */
export const ResourceType = { TOPIC: 2, BROKER: 4 } as const;

/** IncrementalAlterConfigs operation ids (AlterConfigOp.OpType). */
export const AlterConfigOp = { SET: 0, DELETE: 1, APPEND: 2, SUBTRACT: 3 } as const;
export const ALTER_OP_NAMES = ['SET', 'DELETE', 'APPEND', 'SUBTRACT'] as const;

/** Returns an error detail (the text after "Invalid value V for configuration N: "), or null. */
type Validator = (parsed: unknown) => { value: string; message: string } | null;

export interface ConfigDef {
  name: string;
  type: ConfigTypeName;
  /** Default as Kafka reports it in DescribeConfigs; null = no default. */
  defaultValue: string | null;
  documentation: string;
  validator?: Validator;
  sensitive?: boolean;
  /** Broker-level synonym reported for the DEFAULT_CONFIG layer (topic configs). */
  brokerSynonym?: { name: string; value: string | null };
  /** Topic configs: the dynamic broker config whose cluster-default value overrides the default. */
  dynamicSynonym?: string;
  /** Broker configs only: can be altered at runtime (DynamicBrokerConfig). */
  dynamic?: boolean;
  /**
   * Broker configs only: a DynamicConfig.Broker config that is not part of KafkaConfig (the
   * replication throttle rates), so DescribeConfigs lists it only once it is set dynamically.
   * defaultValue is then the value in force while it is not set.
   */
  onlyWhenSet?: boolean;
}

const LONG_MAX = '9223372036854775807';
const INT_MIN = -2147483648n;
const INT_MAX = 2147483647n;
const SHORT_MIN = -32768n;
const SHORT_MAX = 32767n;
const LONG_MIN = -9223372036854775808n;
const LONG_MAXN = 9223372036854775807n;

// ---- validators (messages as in org.apache.kafka.common.config.ConfigDef) ----

function fmtNumber(v: unknown): string {
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') return Number.isInteger(v) ? v.toFixed(1) : String(v); // Java Double.toString
  return String(v);
}

function atLeast(min: number | bigint): Validator {
  return (v) => {
    const n = v as number | bigint;
    if (typeof n === 'bigint' ? n < BigInt(min) : n < Number(min)) {
      return { value: fmtNumber(n), message: `Value must be at least ${min}` };
    }
    return null;
  };
}

function between(min: number, max: number): Validator {
  return (v) => {
    const n = v as number | bigint;
    const x = typeof n === 'bigint' ? Number(n) : n;
    if (x < min) return { value: fmtNumber(n), message: `Value must be at least ${min}` };
    if (x > max) return { value: fmtNumber(n), message: `Value must be no more than ${max}` };
    return null;
  };
}

function validString(...allowed: string[]): Validator {
  return (v) => (allowed.includes(v as string) ? null : { value: v as string, message: `String must be one of: ${allowed.join(', ')}` });
}

function validList(...allowed: string[]): Validator {
  return (v) => {
    for (const s of v as string[]) {
      if (!allowed.includes(s)) return { value: s, message: `String must be one of: ${allowed.join(', ')}` };
    }
    return null;
  };
}

/**
 * ThrottledReplicaListValidator: every entry `partition:broker` (or empty), or the entries
 * joined make exactly `*`, so a list mixing `*` with entries is refused. Its message starts
 * with the config name.
 */
const throttledReplicaList =
  (name: string): Validator =>
  (v) => {
    const parts = (v as string[]).map((p) => p.trim());
    const ok = parts.every((p) => /^([0-9]+:[0-9]+)?$/.test(p)) || parts.join('') === '*';
    return ok
      ? null
      : {
          value: `[${(v as string[]).join(', ')}]`,
          message: `${name} must be the literal '*' or a list of replicas in the following format: [partitionId]:[brokerId],[partitionId]:[brokerId],...`,
        };
  };

const gzipLevel: Validator = (v) => {
  const n = v as bigint;
  return n === -1n || (n >= 1n && n <= 9n) ? null : { value: n.toString(), message: 'Value must be between 1 and 9 or equal to -1' };
};

// ---- parsing (ConfigDef.parseType) ----

export type ParseResult = { ok: true; value: unknown } | { ok: false; message: string };

export function parseList(raw: string): string[] {
  const t = raw.trim();
  return t === '' ? [] : t.split(/\s*,\s*/);
}

function parseInteger(raw: string, min: bigint, max: bigint): bigint | null {
  const t = raw.trim();
  if (!/^[+-]?[0-9]+$/.test(t)) return null;
  const n = BigInt(t);
  return n < min || n > max ? null : n;
}

export function parseConfigValue(def: ConfigDef, raw: string): ParseResult {
  const bad = (detail: string): ParseResult => ({
    ok: false,
    message: `Invalid value ${raw} for configuration ${def.name}: ${detail}`,
  });
  const t = raw.trim();
  switch (def.type) {
    case 'BOOLEAN': {
      const l = t.toLowerCase();
      if (l === 'true') return { ok: true, value: true };
      if (l === 'false') return { ok: true, value: false };
      return bad('Expected value to be either true or false');
    }
    case 'STRING':
      return { ok: true, value: t };
    case 'INT': {
      const n = parseInteger(raw, INT_MIN, INT_MAX);
      return n === null ? bad('Not a number of type INT') : { ok: true, value: n };
    }
    case 'SHORT': {
      const n = parseInteger(raw, SHORT_MIN, SHORT_MAX);
      return n === null ? bad('Not a number of type SHORT') : { ok: true, value: n };
    }
    case 'LONG': {
      const n = parseInteger(raw, LONG_MIN, LONG_MAXN);
      return n === null ? bad('Not a number of type LONG') : { ok: true, value: n };
    }
    case 'DOUBLE': {
      const d = t.replace(/[dDfF]$/, '');
      if (!/^[+-]?(NaN|Infinity|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)$/.test(d)) return bad('Not a number of type DOUBLE');
      return { ok: true, value: Number(d) };
    }
    case 'LIST':
      return { ok: true, value: parseList(raw) };
    case 'CLASS':
    case 'PASSWORD':
      return { ok: true, value: t };
  }
}

/** Parse and validate; returns null when valid, else the ConfigException message Kafka produces. */
export function validateConfigValue(def: ConfigDef, raw: string): string | null {
  const parsed = parseConfigValue(def, raw);
  if (!parsed.ok) return parsed.message;
  const err = def.validator?.(parsed.value);
  return err ? `Invalid value ${err.value} for configuration ${def.name}: ${err.message}` : null;
}

// ---- the tables ----

function topic(
  name: string,
  type: ConfigTypeName,
  defaultValue: string | null,
  documentation: string,
  brokerSynonym: string | { name: string; value: string | null } | null,
  validator?: Validator,
): ConfigDef {
  const syn =
    brokerSynonym === null ? undefined : typeof brokerSynonym === 'string' ? { name: brokerSynonym, value: defaultValue } : brokerSynonym;
  return { name, type, defaultValue, documentation, brokerSynonym: syn, validator };
}

/**
 * MetadataVersionValidator (3.x): a known release version string (MetadataVersion.fromVersionString
 * accepts "3.0", "3.0-IV1", "2.8", "0.10.2", ...; any value is ignored since 3.0, KIP-724).
 */
const metadataVersion: Validator = (v) =>
  /^(0\.(8|9|10|11)(\.\d+)?|[1-3]\.\d+)(-IV\d+)?$/.test(v as string)
    ? null
    : { value: v as string, message: `Version ${v as string} is not a valid version` };

/**
 * Kafka 3.9's topic configs, the 36 of LogConfig.configNames (storage LogConfig.CONFIG) with
 * their 3.9 defaults (the controller vectors the simulator replays are 3.9's); a simulator
 * answering as 4.0 or later uses topicConfigDefsFor's, below. 4.0 dropped message.format.version,
 * message.timestamp.difference.max.ms and message.downconversion.enable (KIP-724, KIP-937,
 * KIP-896) and moved message.timestamp.after.max.ms's default from Long.MAX_VALUE to one hour
 * (KIP-1030; ServerLogConfigs.LOG_MESSAGE_TIMESTAMP_AFTER_MAX_MS_DEFAULT).
 */
// A table: one config a line, as Kafka's documentation lists them.
// prettier-ignore
export const TOPIC_CONFIG_DEFS: readonly ConfigDef[] = [
  topic('cleanup.policy', 'LIST', 'delete', 'The retention policy to use on log segments: delete, compact, or both.', 'log.cleanup.policy', validList('compact', 'delete')),
  topic('compression.gzip.level', 'INT', '-1', 'The compression level to use if compression.type is set to gzip.', 'compression.gzip.level', gzipLevel),
  topic('compression.lz4.level', 'INT', '9', 'The compression level to use if compression.type is set to lz4.', 'compression.lz4.level', between(1, 17)),
  topic('compression.type', 'STRING', 'producer', 'Final compression type for a given topic.', 'compression.type', validString('uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer')),
  topic('compression.zstd.level', 'INT', '3', 'The compression level to use if compression.type is set to zstd.', 'compression.zstd.level', between(-131072, 22)),
  topic('delete.retention.ms', 'LONG', '86400000', 'The amount of time to retain delete tombstone markers for log compacted topics.', 'log.cleaner.delete.retention.ms', atLeast(0)),
  topic('file.delete.delay.ms', 'LONG', '60000', 'The time to wait before deleting a file from the filesystem.', 'log.segment.delete.delay.ms', atLeast(0)),
  topic('flush.messages', 'LONG', LONG_MAX, 'The number of messages accumulated before messages are flushed to disk.', 'log.flush.interval.messages', atLeast(1)),
  topic('flush.ms', 'LONG', LONG_MAX, 'The maximum time a message is kept in memory before it is flushed to disk.', { name: 'log.flush.interval.ms', value: null }, atLeast(0)),
  topic('follower.replication.throttled.replicas', 'LIST', '', "A list of replicas for which log replication should be throttled on the follower side: '*' or partitionId:brokerId pairs.", null, throttledReplicaList('follower.replication.throttled.replicas')),
  topic('index.interval.bytes', 'INT', '4096', 'How frequently Kafka adds an index entry to its offset index.', 'log.index.interval.bytes', atLeast(0)),
  topic('leader.replication.throttled.replicas', 'LIST', '', "A list of replicas for which log replication should be throttled on the leader side: '*' or partitionId:brokerId pairs.", null, throttledReplicaList('leader.replication.throttled.replicas')),
  topic('local.retention.bytes', 'LONG', '-2', 'The maximum size of local log segments that can grow for a partition before it deletes the old segments.', 'log.local.retention.bytes', atLeast(-2)),
  topic('local.retention.ms', 'LONG', '-2', 'The number of milliseconds to keep the local log segment before it gets deleted.', 'log.local.retention.ms', atLeast(-2)),
  topic('max.compaction.lag.ms', 'LONG', LONG_MAX, 'The maximum time a message will remain ineligible for compaction in the log.', 'log.cleaner.max.compaction.lag.ms', atLeast(1)),
  topic('max.message.bytes', 'INT', '1048588', 'The largest record batch size allowed by Kafka (after compression if compression is enabled).', 'message.max.bytes', atLeast(0)),
  topic('message.downconversion.enable', 'BOOLEAN', 'true', 'Whether down-conversion of message formats is enabled to satisfy consume requests.', 'log.message.downconversion.enable'),
  topic('message.format.version', 'STRING', '3.0-IV1', '[DEPRECATED] Ignored since the inter-broker protocol 3.0 (LogConfig.DEFAULT_MESSAGE_FORMAT_VERSION).', 'log.message.format.version', metadataVersion),
  topic('message.timestamp.after.max.ms', 'LONG', LONG_MAX, 'The maximum allowed timestamp difference between the message timestamp and the broker timestamp, for timestamps in the future.', 'log.message.timestamp.after.max.ms', atLeast(0)),
  topic('message.timestamp.before.max.ms', 'LONG', LONG_MAX, 'The maximum allowed timestamp difference between the broker timestamp and the message timestamp, for timestamps in the past.', 'log.message.timestamp.before.max.ms', atLeast(0)),
  topic('message.timestamp.difference.max.ms', 'LONG', LONG_MAX, '[DEPRECATED] The maximum difference allowed between the message timestamp and the broker timestamp.', 'log.message.timestamp.difference.max.ms', atLeast(0)),
  topic('message.timestamp.type', 'STRING', 'CreateTime', 'Define whether the timestamp in the message is message create time or log append time.', 'log.message.timestamp.type', validString('CreateTime', 'LogAppendTime')),
  topic('min.cleanable.dirty.ratio', 'DOUBLE', '0.5', 'How frequently the log compactor will attempt to clean the log.', 'log.cleaner.min.cleanable.ratio', between(0, 1)),
  topic('min.compaction.lag.ms', 'LONG', '0', 'The minimum time a message will remain uncompacted in the log.', 'log.cleaner.min.compaction.lag.ms', atLeast(0)),
  topic('min.insync.replicas', 'INT', '1', 'The minimum number of replicas that must acknowledge a write for acks=all to succeed.', 'min.insync.replicas', atLeast(1)),
  topic('preallocate', 'BOOLEAN', 'false', 'True if we should preallocate the file on disk when creating a new log segment.', 'log.preallocate'),
  topic('remote.log.copy.disable', 'BOOLEAN', 'false', 'Disable copying of log segments to remote storage.', null),
  topic('remote.log.delete.on.disable', 'BOOLEAN', 'false', 'Delete remote data when tiered storage is disabled for the topic.', null),
  topic('remote.storage.enable', 'BOOLEAN', 'false', 'To enable tiered storage for a topic.', null),
  topic('retention.bytes', 'LONG', '-1', 'The maximum size a partition can grow to before old log segments are discarded.', 'log.retention.bytes'),
  topic('retention.ms', 'LONG', '604800000', 'The maximum time a log is retained before old log segments are discarded.', { name: 'log.retention.hours', value: '168' }, atLeast(-1)),
  topic('segment.bytes', 'INT', '1073741824', 'The segment file size for the log.', 'log.segment.bytes', atLeast(14)),
  topic('segment.index.bytes', 'INT', '10485760', 'The size of the index that maps offsets to file positions.', 'log.index.size.max.bytes', atLeast(4)),
  topic('segment.jitter.ms', 'LONG', '0', 'The maximum random jitter subtracted from the scheduled segment roll time.', { name: 'log.roll.jitter.hours', value: '0' }, atLeast(0)),
  topic('segment.ms', 'LONG', '604800000', 'The period of time after which Kafka will force the log to roll.', { name: 'log.roll.hours', value: '168' }, atLeast(1)),
  topic('unclean.leader.election.enable', 'BOOLEAN', 'false', 'Whether replicas not in the ISR may be elected as leader as a last resort.', 'unclean.leader.election.enable'),
];

function broker(
  name: string,
  type: ConfigTypeName,
  defaultValue: string | null,
  dynamic: boolean,
  documentation: string,
  validator?: Validator,
): ConfigDef {
  return { name, type, defaultValue, dynamic, documentation, validator };
}

/** Broker configs the model knows. Non-dynamic ones are read-only (altering them is refused). */
// A table: one config a line, as Kafka's documentation lists them.
// prettier-ignore
export const BROKER_CONFIG_DEFS: readonly ConfigDef[] = [
  // Dynamic-only configs (DynamicConfig.Broker): listed only once set; unlimited until then.
  { ...broker('leader.replication.throttled.rate', 'LONG', LONG_MAX, true, 'Bytes/s limit for leader replication of throttled replicas.', atLeast(0)), onlyWhenSet: true },
  { ...broker('follower.replication.throttled.rate', 'LONG', LONG_MAX, true, 'Bytes/s limit for follower replication of throttled replicas.', atLeast(0)), onlyWhenSet: true },
  { ...broker('replica.alter.log.dirs.io.max.bytes.per.second', 'LONG', LONG_MAX, true, 'Bytes/s limit for moving replicas between log dirs.', atLeast(0)), onlyWhenSet: true },
  broker('log.cleaner.threads', 'INT', '1', true, 'The number of background threads to use for log cleaning.', atLeast(0)),
  broker('log.retention.ms', 'LONG', null, true, 'The number of milliseconds to keep a log file before deleting it.'),
  broker('message.max.bytes', 'INT', '1048588', true, 'The largest record batch size allowed by Kafka.', atLeast(0)),
  broker('min.insync.replicas', 'INT', '1', true, 'Default minimum ISR size for acks=all.', atLeast(1)),
  broker('unclean.leader.election.enable', 'BOOLEAN', 'false', true, 'Default for unclean leader election.'),
  broker('num.partitions', 'INT', '1', false, 'The default number of log partitions per topic.', atLeast(1)),
  broker('default.replication.factor', 'INT', '1', false, 'The default replication factor for automatically created topics.'),
  broker('auto.create.topics.enable', 'BOOLEAN', 'true', false, 'Enable auto creation of topic on the server.'),
  broker('delete.topic.enable', 'BOOLEAN', 'true', false, 'Enables delete topic.'),
  broker('broker.id', 'INT', '-1', false, 'The broker id for this server.'),
  broker('node.id', 'INT', '-1', false, 'The node ID associated with the roles this process is playing.'),
  broker('broker.rack', 'STRING', null, false, 'Rack of the broker.'),
  broker('log.dirs', 'STRING', null, false, 'The directories in which the log data is kept.'),
  broker('log.dir', 'STRING', '/tmp/kafka-logs', false, 'The directory in which the log data is kept (supplemental for log.dirs).'),
  broker('process.roles', 'LIST', '', false, 'The roles that this process plays: broker, controller, or both.'),
  broker('auto.leader.rebalance.enable', 'BOOLEAN', 'true', false, 'Enables auto leader balancing.'),
  broker('offsets.topic.replication.factor', 'SHORT', '3', false, 'The replication factor for the offsets topic.'),
  broker('transaction.state.log.replication.factor', 'SHORT', '3', false, 'The replication factor for the transaction topic.'),
  broker('replica.lag.time.max.ms', 'LONG', '30000', false, 'A follower not caught up with the leader for this long is removed from the ISR.'),
  broker('replica.fetch.max.bytes', 'INT', '1048576', false, 'The number of bytes of messages to attempt to fetch for each partition.'),
  broker('num.replica.fetchers', 'INT', '1', true, 'Number of fetcher threads used to replicate records from each source broker.', atLeast(1)),
  broker('num.replica.alter.log.dirs.threads', 'INT', null, false, 'The number of threads that can move replicas between log directories.'),
  broker('quota.window.num', 'INT', '11', false, 'The number of samples to retain in memory for client quotas.', atLeast(1)),
  broker('quota.window.size.seconds', 'INT', '1', false, 'The time span of each sample for client quotas.', atLeast(1)),
  broker('replication.quota.window.num', 'INT', '11', false, 'The number of samples to retain in memory for replication quotas.', atLeast(1)),
  broker('replication.quota.window.size.seconds', 'INT', '1', false, 'The time span of each sample for replication quotas.', atLeast(1)),
  broker('alter.log.dirs.replication.quota.window.num', 'INT', '11', false, 'The number of samples to retain in memory for alter log dirs replication quotas.', atLeast(1)),
  broker('alter.log.dirs.replication.quota.window.size.seconds', 'INT', '1', false, 'The time span of each sample for alter log dirs replication quotas.', atLeast(1)),
  broker('controller.quota.window.num', 'INT', '11', false, 'The number of samples to retain in memory for controller mutation quotas.', atLeast(1)),
  broker('controller.quota.window.size.seconds', 'INT', '1', false, 'The time span of each sample for controller mutations quotas.', atLeast(1)),
];

for (const [topicName, brokerName] of [
  ['retention.ms', 'log.retention.ms'],
  ['min.insync.replicas', 'min.insync.replicas'],
  ['unclean.leader.election.enable', 'unclean.leader.election.enable'],
  ['max.message.bytes', 'message.max.bytes'],
] as const) {
  (TOPIC_CONFIG_DEFS.find((d) => d.name === topicName) as ConfigDef).dynamicSynonym = brokerName;
}

/**
 * The topic configs 4.0 removed (KIP-724: message.format.version; KIP-937:
 * message.timestamp.difference.max.ms; KIP-896 / KIP-724: message.downconversion.enable), and
 * message.timestamp.after.max.ms's 4.0 default, one hour (KIP-1030).
 */
const REMOVED_IN_4_0: ReadonlySet<string> = new Set([
  'message.downconversion.enable',
  'message.format.version',
  'message.timestamp.difference.max.ms',
]);
const TIMESTAMP_AFTER_MAX_MS_4_0 = '3600000';

/** The topic configs of a broker of Kafka `major`.x: 3.9's 36 before 4, 33 from 4.0 on. */
export function topicConfigDefsFor(major: number): readonly ConfigDef[] {
  if (major < 4) return TOPIC_CONFIG_DEFS;
  return TOPIC_CONFIG_DEFS.filter((d) => !REMOVED_IN_4_0.has(d.name)).map((d) =>
    d.name === 'message.timestamp.after.max.ms'
      ? {
          ...d,
          defaultValue: TIMESTAMP_AFTER_MAX_MS_4_0,
          ...(d.brokerSynonym && { brokerSynonym: { ...d.brokerSynonym, value: TIMESTAMP_AFTER_MAX_MS_4_0 } }),
        }
      : d,
  );
}

const TOPIC_BY_NAME = new Map(TOPIC_CONFIG_DEFS.map((d) => [d.name, d]));
const BROKER_BY_NAME = new Map(BROKER_CONFIG_DEFS.map((d) => [d.name, d]));

export function topicConfigDef(name: string): ConfigDef | undefined {
  return TOPIC_BY_NAME.get(name);
}
export function brokerConfigDef(name: string): ConfigDef | undefined {
  return BROKER_BY_NAME.get(name);
}

/** Java's String.split(","): trailing empty strings dropped, "" -> [""]. */
export function javaSplitComma(s: string): string[] {
  const parts = s.split(',');
  if (s === '') return [''];
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}
