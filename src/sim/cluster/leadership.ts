// Leaders and ISRs in the simulator's cluster model (ClusterModel's broker changes, ./model.ts):
// a broker stopped (fenced) or started, ElectLeaders, and ISRs set on demand (trouble). Every
// leader change bumps the leader epoch, every leader or ISR change the partition epoch, and the
// topic's cached Metadata view goes with it.
import type { ClusterState } from './cluster-state.js';
import { decideElections, type ElectionTopicResult } from './elections.js';
import { NO_LEADER, bestLeader, type PartitionState, type TopicState } from './topics.js';

/**
 * Stop (fence) a broker: it leaves every ISR it is in (KRaft keeps the last ISR member, with no
 * leader, when ELR is off), partitions it led elect the first ISR replica in replica order that is
 * up, or go leaderless (-1). Every leader change bumps leaderEpoch. Idempotent.
 */
export function stopBroker(s: ClusterState, id: number): void {
  s.sync(); // copies through this broker ran until now
  if (!s.brokers.setUp(id, false)) return;
  const up = (r: number) => s.brokers.isUp(r);
  for (const topic of s.topics.values()) {
    for (const p of topic.partitions) {
      if (!p.isr.includes(id) && p.leader !== id) continue;
      const targetIsr = p.isr.filter((r) => r !== id);
      let leader = p.leader;
      let isr = targetIsr.length > 0 ? targetIsr : [...p.isr];
      if (leader === id || leader === NO_LEADER) {
        const elected = bestLeader(p.replicas, targetIsr, s.uncleanAllowed(topic), up);
        leader = elected.leader;
        if (elected.unclean) isr = [leader];
      }
      changePartition(s, topic, p, leader, isr);
    }
  }
  s.views.clear(); // offline replicas
  s.moves.brokersChanged();
}

/**
 * Start (unfence) a broker: leaderless partitions elect a leader again (first replica in replica
 * order that is in the ISR and up), and the returning replica, being caught up at once in this
 * simulator, rejoins the ISR of every partition that has a leader. Idempotent.
 */
export function startBroker(s: ClusterState, id: number): void {
  s.sync(); // copies through this broker were stalled until now
  if (!s.brokers.setUp(id, true)) return;
  const up = (r: number) => s.brokers.isUp(r);
  for (const topic of s.topics.values()) {
    for (const p of topic.partitions) {
      let leader = p.leader;
      let isr = p.isr;
      if (leader === NO_LEADER) {
        const elected = bestLeader(p.replicas, p.isr, s.uncleanAllowed(topic), up);
        leader = elected.leader;
        if (elected.unclean) isr = [leader];
      }
      // A replica still copying its log (a reassignment's new replica) joins only once caught up.
      // Joiners go after the ISR's members, which keep their order (Partition.scala maybeExpandIsr
      // appends the replica the leader found in sync).
      if (leader !== NO_LEADER) {
        const kept = isr;
        isr = [...kept, ...p.replicas.filter((r) => !kept.includes(r) && up(r) && !s.moves.isCatchingUp(p, r))];
      }
      changePartition(s, topic, p, leader, isr);
    }
  }
  s.views.clear(); // offline replicas
  s.moves.brokersChanged(); // a returning replica may complete a reassignment
  s.sync(); // a returning target replica may catch up at once
}

/**
 * ElectLeaders (API 43), as KRaft's controller runs it (./elections.ts): every decision against
 * the state before the request, the leader changes applied after it. `partitions` null = all.
 */
export function electLeaders(
  s: ClusterState,
  partitions: readonly { topic: string; partitions: readonly number[] }[] | null,
  electionType: number,
  zk = false,
): ElectionTopicResult[] {
  s.sync();
  const host = {
    topic: (name: string) => s.topics.get(name),
    isUp: (id: number) => s.brokers.isUp(id),
    sortedTopics: () => s.topicsByName(),
  };
  const { results, changes } = decideElections(host, partitions, electionType, zk);
  for (const c of changes) changePartition(s, c.topic, c.p, c.leader, c.isr);
  if (changes.length > 0) s.moves.brokersChanged(); // a moving partition copies from its new leader
  return results;
}

function changePartition(s: ClusterState, topic: TopicState, p: PartitionState, leader: number, isr: number[]): void {
  const leaderChanged = leader !== p.leader;
  const isrChanged = isr.length !== p.isr.length || isr.some((r, i) => p.isr[i] !== r);
  if (!leaderChanged && !isrChanged) return;
  s.views.delete(topic);
  if (leaderChanged) p.leaderEpoch++;
  p.partitionEpoch++;
  p.leader = leader;
  p.isr = [...isr];
}

/**
 * Trouble on demand (./trouble.ts): partitions' ISRs set as given, their leaders unchanged, as
 * the leader's AlterPartition shrinking or growing them would: members keep their order,
 * joiners go last (Partition.scala maybeExpandIsr); a replica that is down or still copying (a
 * move's) does not join, and an ISR without the leader is not applied. Returns how many
 * changed; throws UNKNOWN_TOPIC_OR_PARTITION (3) before changing anything.
 */
export function setIsrs(s: ClusterState, entries: readonly { topic: string; partition: number; isr: readonly number[] }[]): number {
  s.sync();
  const found = entries.map((e) => ({ e, t: s.topics.get(e.topic)!, p: s.partitionState(e.topic, e.partition) }));
  let changed = 0;
  for (const { e, t, p } of found) {
    if (p.leader >= 0 && !e.isr.includes(p.leader)) continue; // the leader is always in its ISR
    const joiners = p.replicas.filter((r) => e.isr.includes(r) && !p.isr.includes(r) && s.brokers.isUp(r) && !s.moves.isCatchingUp(p, r));
    const next = [...p.isr.filter((r) => e.isr.includes(r)), ...joiners];
    if (next.length === p.isr.length && next.every((r, i) => p.isr[i] === r)) continue;
    changePartition(s, t, p, p.leader, next);
    changed++;
  }
  if (changed > 0) s.moves.brokersChanged(); // copies re-classify; a moving partition may complete on a grown ISR
  return changed;
}
