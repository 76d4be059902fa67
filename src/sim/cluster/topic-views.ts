// Topics as the simulator's cluster model reports them (ClusterModel's topic reads, ./model.ts):
// TopicInfo copies for the control port and tests, and the cached, shared TopicView Metadata
// answers from. Each read first brings the replica copies up to the clock (ClusterState.sync).
import type { ClusterState } from './cluster-state.js';
import type { TopicView } from './model-types.js';
import type { PartitionInfo, PartitionState, TopicInfo, TopicState } from './topics.js';
import { uuidFromBytes } from './uuid.js';

const NO_REPLICAS = Object.freeze([]) as unknown as number[];

/** A partition's state as a PartitionInfo the caller may keep and modify. */
export function copyPartition(p: PartitionState, isUp: (id: number) => boolean): PartitionInfo {
  return {
    partition: p.partition,
    leader: p.leader,
    leaderEpoch: p.leaderEpoch,
    partitionEpoch: p.partitionEpoch,
    replicas: [...p.replicas],
    isr: [...p.isr],
    offlineReplicas: p.replicas.filter((r) => !isUp(r)),
  };
}

export function listTopics(s: ClusterState): TopicInfo[] {
  s.sync();
  return s.topicsByName().map((t) => topicInfo(s, t));
}

/**
 * Every topic as Metadata reports it, sorted by name. The views are cached until something in
 * them changes and are shared: callers must not modify them.
 */
export function topicViews(s: ClusterState): TopicView[] {
  s.sync();
  return s.topicsByName().map((t) => view(s, t));
}

/** One topic's Metadata view (shared, see topicViews), by name or by id. */
export function topicView(s: ClusterState, ref: { name: string } | { id: string | Uint8Array }): TopicView | undefined {
  s.sync();
  const t =
    'name' in ref
      ? s.topics.get(ref.name)
      : s.topicsById.get(typeof ref.id === 'string' ? ref.id : ref.id.length === 16 ? uuidFromBytes(ref.id) : '');
  return t && view(s, t);
}

function view(s: ClusterState, t: TopicState): TopicView {
  let v = s.views.get(t);
  if (!v) {
    // Shares the partitions' replica and ISR arrays: the model replaces them on every change,
    // never modifies them in place, and the view goes with the change (100k copies spared).
    const isUp = (r: number) => s.brokers.isUp(r);
    v = {
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({
        partition: p.partition,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        partitionEpoch: p.partitionEpoch,
        replicas: p.replicas,
        isr: p.isr,
        offlineReplicas: p.replicas.every(isUp) ? NO_REPLICAS : p.replicas.filter((r) => !isUp(r)),
      })),
    };
    s.views.set(t, v);
  }
  return v;
}

export function getTopic(s: ClusterState, name: string): TopicInfo | undefined {
  s.sync();
  const t = s.topics.get(name);
  return t && topicInfo(s, t);
}

/** Accepts the Kafka string form (22-char base64url) or the 16 raw bytes. */
export function getTopicById(s: ClusterState, id: string | Uint8Array): TopicInfo | undefined {
  s.sync();
  const key = typeof id === 'string' ? id : id.length === 16 ? uuidFromBytes(id) : '';
  const t = s.topicsById.get(key);
  return t && topicInfo(s, t);
}

/** Throws UNKNOWN_TOPIC_OR_PARTITION (3). */
export function getPartition(s: ClusterState, topic: string, partition: number): PartitionInfo {
  s.sync();
  return copyPartition(s.partitionState(topic, partition), (r) => s.brokers.isUp(r));
}

function topicInfo(s: ClusterState, t: TopicState): TopicInfo {
  const isUp = (r: number) => s.brokers.isUp(r);
  return {
    name: t.name,
    topicId: t.topicId,
    isInternal: t.name === '__consumer_offsets' || t.name === '__transaction_state',
    partitions: t.partitions.map((p) => copyPartition(p, isUp)),
    configs: Object.fromEntries(t.configs),
    createdAt: t.createdAt,
  };
}
