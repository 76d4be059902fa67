// Topic and partition creation and topic deletion in the simulator's cluster model
// (ClusterModel's topic writes, ./model.ts), as KRaft's ReplicationControlManager does them:
// everything is validated first and only then applied, and validateOnly applies nothing.
import type { ClusterState } from './cluster-state.js';
import { ErrorCode, KafkaError } from './errors.js';
import { PartitionLog } from './log.js';
import type { CreatePartitionsResult, CreateTopicRequest, CreateTopicResult, DeletedTopic, ValidateOnlyOption } from './model-types.js';
import { placeReplicas, placeReplicasClassic } from './placement.js';
import { copyPartition } from './topic-views.js';
import {
  hasCollisionChars,
  unifyCollisionChars,
  validateManualAssignment,
  validateTopicName,
  type PartitionState,
  type TopicState,
} from './topics.js';
import { ZERO_UUID, randomUuid, uuidFromBytes } from './uuid.js';

/** QuorumController.MAX_RECORDS_PER_USER_OP */
const MAX_RECORDS_PER_USER_OP = 10000;

function place(s: ClusterState, numPartitions: number, rf: number, existing?: PartitionState[]): number[][] {
  const brokers = s.brokers.list().map((b) => ({ id: b.id, rack: b.rack, fenced: !b.up }));
  if (s.placer === 'striped') return placeReplicas(brokers, numPartitions, rf, s.random);
  let startIndex = 0;
  if (existing && existing.length > 0) {
    // AdminZkClient.addPartitions: continue from partition 0's leader position
    const liveSorted = brokers.filter((b) => !b.fenced);
    const p0 = existing[0].replicas[0];
    const idx = placeReplicasClassic(liveSorted, liveSorted.length, 1).findIndex((r) => r[0] === p0);
    startIndex = Math.max(0, idx);
  }
  return placeReplicasClassic(brokers, numPartitions, rf, { startPartitionId: existing?.length ?? 0, startIndex });
}

/** CreateTopics for one topic, as KRaft's ReplicationControlManager.createTopic does it. */
export function createTopic(s: ClusterState, req: CreateTopicRequest, opts: ValidateOnlyOption = {}): CreateTopicResult {
  const name = req.name;
  validateTopicName(name);
  if (s.topics.has(name)) {
    throw new KafkaError(ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${name}' already exists.`);
  }
  if (hasCollisionChars(name)) {
    const other = s.collisionForms.get(unifyCollisionChars(name));
    if (other !== undefined) {
      throw new KafkaError(ErrorCode.INVALID_TOPIC_EXCEPTION, `Topic '${name}' collides with existing topic: ${other}`);
    }
  }

  // Configs (computeConfigChanges + ControllerConfigurationValidator)
  const configMap = new Map<string, string | null>();
  for (const c of req.configs ?? []) configMap.set(c.name, c.value);
  s.configs.validateTopicConfigs(configMap);

  const numPartitionsReq = req.numPartitions ?? -1;
  const rfReq = req.replicationFactor ?? -1;
  const assignments = req.assignments ?? [];
  const up = (r: number) => s.brokers.isUp(r);
  let replicaLists: number[][];

  if (assignments.length > 0) {
    if (rfReq !== -1) {
      throw new KafkaError(
        ErrorCode.INVALID_REQUEST,
        'A manual partition assignment was specified, but replication factor was not set to -1.',
      );
    }
    if (numPartitionsReq !== -1) {
      throw new KafkaError(ErrorCode.INVALID_REQUEST, 'A manual partition assignment was specified, but numPartitions was not set to -1.');
    }
    const byIndex = new Map<number, number[]>();
    let rf: number | null = null;
    for (const a of assignments) {
      if (byIndex.has(a.partition)) {
        throw new KafkaError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `Found multiple manual partition assignments for partition ${a.partition}`,
        );
      }
      validateManualAssignment(a.brokerIds, (id) => s.brokers.isRegistered(id), rf);
      rf = a.brokerIds.length;
      if (!a.brokerIds.some(up)) {
        throw new KafkaError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `All brokers specified in the manual partition assignment for partition ${a.partition} are fenced or in controlled shutdown.`,
        );
      }
      byIndex.set(a.partition, [...a.brokerIds]);
    }
    for (let i = 0; i < byIndex.size; i++) {
      if (!byIndex.has(i)) {
        throw new KafkaError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, 'partitions should be a consecutive 0-based integer sequence');
      }
    }
    replicaLists = [...byIndex.keys()].sort((a, b) => a - b).map((i) => byIndex.get(i)!);
  } else if (rfReq < -1 || rfReq === 0) {
    throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, 'Replication factor must be larger than 0, or -1 to use the default value.');
  } else if (numPartitionsReq < -1 || numPartitionsReq === 0) {
    throw new KafkaError(ErrorCode.INVALID_PARTITIONS, 'Number of partitions was set to an invalid non-positive value.');
  } else {
    const numPartitions = numPartitionsReq === -1 ? s.numPartitionsDefault : numPartitionsReq;
    const rf = rfReq === -1 ? s.defaultReplicationFactor : rfReq;
    if (numPartitions + 1 + configMap.size > MAX_RECORDS_PER_USER_OP) {
      throw new KafkaError(
        ErrorCode.POLICY_VIOLATION,
        `Unable to create topic ${name}: too many partitions (at most ${MAX_RECORDS_PER_USER_OP} records per operation).`,
      );
    }
    try {
      replicaLists = place(s, numPartitions, rf);
    } catch (e) {
      if (e instanceof KafkaError && e.code === ErrorCode.INVALID_REPLICATION_FACTOR) {
        throw new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, `Unable to replicate the partition ${rf} time(s): ${e.message}`);
      }
      throw e;
    }
  }

  const partitions: PartitionState[] = replicaLists.map((replicas, i) => {
    const isr = replicas.filter(up);
    return { partition: i, leader: isr[0], leaderEpoch: 0, partitionEpoch: 0, replicas, isr, moves: null };
  });
  const topicId = randomUuid(s.uuidSource);
  const configs = new Map<string, string>();
  for (const [k, v] of configMap) configs.set(k, v as string);
  const topic: TopicState = { name, topicId, partitions, configs, createdAt: s.clock.now() };

  if (!opts.validateOnly) {
    s.topics.set(name, topic);
    s.topicsById.set(topicId, topic);
    s.collisionForms.set(unifyCollisionChars(name), name);
    s.sortedTopics = null;
    s.logs.set(
      topicId,
      partitions.map((p) => newLog(s, name, p.partition)),
    );
    for (const p of partitions) s.replicaIndex.add(topic, p);
  }
  return {
    name,
    topicId,
    numPartitions: partitions.length,
    replicationFactor: partitions[0].replicas.length,
    partitions: partitions.map((p) => copyPartition(p, up)),
    configs: s.configs.topicEntries(configs, null),
  };
}

/** CreatePartitions for one topic (ReplicationControlManager.createPartitions). */
export function createPartitions(
  s: ClusterState,
  name: string,
  count: number,
  assignments: number[][] | null = null,
  opts: ValidateOnlyOption = {},
): CreatePartitionsResult {
  const topic = s.topics.get(name);
  // The controller answers an unknown topic here with a null message.
  if (!topic) throw KafkaError.withoutMessage(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  const current = topic.partitions.length;
  if (count === current) {
    throw new KafkaError(ErrorCode.INVALID_PARTITIONS, `Topic already has ${current} partition(s).`);
  } else if (count < current) {
    throw new KafkaError(
      ErrorCode.INVALID_PARTITIONS,
      `The topic ${name} currently has ${current} partition(s); ${count} would not be an increase.`,
    );
  }
  const additional = count - current;
  if (assignments !== null && assignments.length !== additional) {
    throw new KafkaError(
      ErrorCode.INVALID_REPLICA_ASSIGNMENT,
      `Attempted to add ${additional} additional partition(s), but only ${assignments.length} assignment(s) were specified.`,
    );
  }
  if (additional > MAX_RECORDS_PER_USER_OP) {
    throw new KafkaError(
      ErrorCode.POLICY_VIOLATION,
      `Unable to add ${additional} partitions to ${name}: at most ${MAX_RECORDS_PER_USER_OP} records per operation.`,
    );
  }
  const rf = topic.partitions[0].replicas.length;
  const up = (r: number) => s.brokers.isUp(r);
  let replicaLists: number[][];
  if (assignments !== null) {
    replicaLists = assignments.map((replicas, i) => {
      validateManualAssignment(replicas, (id) => s.brokers.isRegistered(id), rf);
      if (!replicas.some(up)) {
        throw new KafkaError(
          ErrorCode.INVALID_REPLICA_ASSIGNMENT,
          `All brokers specified in the manual partition assignment for partition ${current + i} are fenced or in controlled shutdown.`,
        );
      }
      return [...replicas];
    });
  } else {
    replicaLists = place(s, additional, rf, topic.partitions);
  }
  const added: PartitionState[] = replicaLists.map((replicas, i) => {
    const isr = replicas.filter(up);
    return { partition: current + i, leader: isr[0], leaderEpoch: 0, partitionEpoch: 0, replicas, isr, moves: null };
  });
  if (!opts.validateOnly) {
    for (const p of added) topic.partitions.push(p);
    const logs = s.logs.get(topic.topicId)!;
    for (const p of added) logs.push(newLog(s, name, p.partition));
    for (const p of added) s.replicaIndex.add(topic, p);
    s.views.delete(topic);
  }
  return { name, partitions: added.map((p) => copyPartition(p, up)) };
}

function newLog(s: ClusterState, topic: string, partition: number): PartitionLog {
  const log = new PartitionLog(`${topic}-${partition}`);
  const seeded = Math.floor(s.initialBytes?.(topic, partition) ?? 0);
  if (seeded > 0) log.seedBytes(seeded);
  return log;
}

function checkDeletionEnabled(s: ClusterState): void {
  if (!s.deleteTopicEnable) {
    throw new KafkaError(ErrorCode.TOPIC_DELETION_DISABLED, 'Topic deletion is disabled.');
  }
}

function removeTopic(s: ClusterState, t: TopicState): DeletedTopic {
  s.sync();
  s.moves.forgetTopic(t);
  s.topics.delete(t.name);
  s.topicsById.delete(t.topicId);
  s.collisionForms.delete(unifyCollisionChars(t.name));
  s.sortedTopics = null;
  s.views.delete(t);
  s.replicaIndex.removeTopic(t);
  s.logs.delete(t.topicId);
  return { name: t.name, topicId: t.topicId, numPartitions: t.partitions.length };
}

/** DeleteTopics by name: unknown -> UNKNOWN_TOPIC_OR_PARTITION (3). */
export function deleteTopic(s: ClusterState, name: string): DeletedTopic {
  checkDeletionEnabled(s);
  const t = s.topics.get(name);
  if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  return removeTopic(s, t);
}

/** DeleteTopics by id (string form or 16 bytes): unknown -> UNKNOWN_TOPIC_ID (100). */
export function deleteTopicById(s: ClusterState, id: string | Uint8Array): DeletedTopic {
  checkDeletionEnabled(s);
  const key = typeof id === 'string' ? id : id.length === 16 ? uuidFromBytes(id) : '';
  if (key === ZERO_UUID) {
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `Attempt to find topic with invalid topicId ${key}`);
  }
  const t = s.topicsById.get(key);
  if (!t) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_ID);
  return removeTopic(s, t);
}
