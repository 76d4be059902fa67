// The topic configs the moves read for every partition they touch (unclean.leader.election.enable
// and the throttled-replica lists), read once per topic inside a batch (a request of many
// entries, beginBatch/endBatch); any config change in between starts a new generation, so nothing
// stale is used. Outside a batch every read goes to the host.
import { parseThrottledReplicas, type ThrottledReplicas } from './throttled-replicas.js';
import type { TopicState } from './topics.js';

/** What the reads go to (the moves' host). */
export interface TopicConfigSource {
  uncleanAllowed(topic: TopicState): boolean;
  topicConfig(topic: TopicState, name: string): string | null;
}

/** A topic's *.replication.throttled.replicas, parsed once per value. */
interface ThrottleList {
  raw: string | null;
  parsed: ThrottledReplicas;
}

export class MoveConfigReads {
  private batchGeneration = 0;
  private batchDepth = 0;
  private readonly uncleanMemo = new Map<TopicState, { generation: number; value: boolean }>();
  private readonly throttleCheckedAt = new Map<TopicState, number>();
  private readonly throttleLists = new Map<TopicState, { leader: ThrottleList; follower: ThrottleList }>();

  constructor(private readonly host: TopicConfigSource) {}

  /** Start of a request touching many partitions: configs are read once per topic until endBatch. */
  beginBatch(): void {
    if (this.batchDepth++ === 0) this.batchGeneration++;
  }

  /** End of that request. */
  endBatch(): void {
    if (--this.batchDepth > 0) return;
    this.batchGeneration++;
    this.uncleanMemo.clear();
    this.throttleCheckedAt.clear();
  }

  private get inBatch(): boolean {
    return this.batchDepth > 0;
  }

  /** The topic's unclean.leader.election.enable. */
  uncleanAllowed(t: TopicState): boolean {
    if (!this.inBatch) return this.host.uncleanAllowed(t);
    const memo = this.uncleanMemo.get(t);
    if (memo?.generation === this.batchGeneration) return memo.value;
    const value = this.host.uncleanAllowed(t);
    this.uncleanMemo.set(t, { generation: this.batchGeneration, value });
    return value;
  }

  /** Whether the topic's leader/follower.replication.throttled.replicas lists partition:broker. */
  throttled(t: TopicState, side: 'leader' | 'follower', partition: number, brokerId: number): boolean {
    let lists = this.throttleLists.get(t);
    if (!lists) this.throttleLists.set(t, (lists = { leader: emptyList(), follower: emptyList() }));
    // Both sides' raw values are re-read once per batch generation (every call outside a batch).
    if (!this.inBatch || this.throttleCheckedAt.get(t) !== this.batchGeneration) {
      for (const s of ['leader', 'follower'] as const) {
        const raw = this.host.topicConfig(t, `${s}.replication.throttled.replicas`);
        if (lists[s].raw !== raw) lists[s] = { raw, parsed: parseThrottledReplicas(raw) };
      }
      if (this.inBatch) this.throttleCheckedAt.set(t, this.batchGeneration);
    }
    return lists[side].parsed.lists(partition, brokerId);
  }

  /** A topic's configs changed. */
  topicChanged(t: TopicState): void {
    this.batchGeneration++;
    this.throttleLists.delete(t);
  }

  /** A broker's configs changed; `clusterDefault`: the cluster default, which topic configs may follow. */
  brokerChanged(clusterDefault: boolean): void {
    this.batchGeneration++;
    if (clusterDefault) this.throttleLists.clear();
  }

  /** A topic was deleted. */
  forget(t: TopicState): void {
    this.throttleLists.delete(t);
  }
}

function emptyList(): ThrottleList {
  return { raw: null, parsed: parseThrottledReplicas(null) };
}
