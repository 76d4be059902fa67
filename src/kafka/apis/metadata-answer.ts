// A decoded Metadata answer (src/kafka/apis/metadata.ts decodes it). Types only, in a
// module of their own so that src/kafka/request.ts can name them without an import cycle.

/** Where a partition is: what describePartitions' callers (reconciler, pacer, plans, starts) read. */
export interface Placement {
  partition: number;
  /** -1 when there is none. */
  leader: number;
  replicas: number[];
}

/**
 * A partition as describeTopic answers it (PartitionDescription). Both shapes are read
 * straight from the answer, so the adapters below hand these objects on without copying them.
 */
export interface PartitionPlacement extends Placement {
  isr: number[];
  offlineReplicas: number[];
}

export interface MetadataBroker {
  nodeId: number;
  host: string;
  port: number;
  rack: string | null;
}

export interface MetadataTopic<P extends Placement = PartitionPlacement> {
  errorCode: number;
  name: string | null;
  /** As the client printed it: dashed hex, all zeros when Kafka sent none (topicIdOrNull turns it into Kafka's form). */
  topicId: string;
  isInternal: boolean;
  /** In the order of the answer. */
  partitions: P[];
  /** Error code of partitions[i], or null when every partition answered 0 (the usual case: no array then). */
  partitionErrorCodes: Int16Array | null;
}

/**
 * A decoded Metadata v11-v13 response. leader_epoch and topic_authorized_operations are not kept
 * (the gateway uses neither, and asks for no authorized operations); v13's top-level error_code is
 * thrown when set (./metadata.ts), so an answer here has none.
 */
export interface MetadataAnswer<P extends Placement = PartitionPlacement> {
  throttleTimeMs: number;
  brokers: MetadataBroker[];
  clusterId: string | null;
  controllerId: number;
  topics: MetadataTopic<P>[];
}
