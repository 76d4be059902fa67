// The simulator's in-memory cluster model (no networking, no wire encoding).
export { ErrorCode, errorName, KafkaError, DEFAULT_ERROR_MESSAGES, type ErrorName } from './errors.js';
export { ZERO_UUID, randomUuid, randomUuidBytes, uuidFromBytes, uuidToBytes } from './uuid.js';
export {
  AlterConfigOp,
  BROKER_CONFIG_DEFS,
  ConfigSource,
  ConfigType,
  ResourceType,
  TOPIC_CONFIG_DEFS,
  brokerConfigDef,
  parseConfigValue,
  topicConfigDef,
  validateConfigValue,
  type ConfigDef,
  type ConfigTypeName,
} from './configs.js';
export {
  type ConfigRequestOptions,
  type ConfigResourceRef,
  type ConfigSynonym,
  type DescribeConfigsEntry,
  type IncrementalAlterOp,
  type LegacyAlterConfig,
} from './config-ops.js';
export { JavaRandom, ZERO_RANDOM, placeReplicas, type PlacementBroker, type PlacementRandom } from './placement.js';
export { NO_LEADER, invalidTopicReason, validateTopicName, type PartitionInfo, type TopicInfo } from './topics.js';
export { type BrokerInfo, type BrokerSpec } from './brokers.js';
export {
  ListOffsetsTimestamp,
  RECORD_BATCH_OVERHEAD,
  crc32c,
  splitBatches,
  writeBatchCrc,
  type AppendResult,
  type OffsetAndTimestamp,
  type ReadResult,
} from './log.js';
export {
  ClusterModel,
  type ClusterModelOptions,
  type CreatePartitionsResult,
  type CreateTopicRequest,
  type CreateTopicResult,
  type DeletedTopic,
  type FetchOptions,
  type ProduceOptions,
  type ValidateOnlyOption,
} from './model.js';
