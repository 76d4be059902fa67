// The gateway's own state topic: one compacted partition of keyed JSON records, read from
// the beginning to the end offset (ListOffsets v9 + Fetch v17) and written with Produce v11
// acks=-1, all through the gateway's connection pool. No consumer group, no producer id:
// every instance reads the whole partition itself, and a write is durable once the
// in-sync replicas have it (acks=-1) - the write-ahead ledger relies on that.
//
// Requests go to the partition's leader. Any answer that means "wrong or gone leader" (a lost
// or refused connection, BROKER_NOT_AVAILABLE because the broker left the metadata,
// NOT_LEADER_OR_FOLLOWER, LEADER_NOT_AVAILABLE, FENCED/UNKNOWN_LEADER_EPOCH, an unknown topic
// or topic id while metadata catches up) makes it re-learn the leader with a Metadata request
// for this one topic and try again, with jittered backoff (equalJitter in ./config.ts),
// until the request's time budget (KAFKA_REQUEST_TIMEOUT_MS) is spent: a stopped broker
// costs a re-election, not a 502.
//
// A topic that Metadata says does not exist is a StateTopicMissingError, unless ensure() was
// told to create it (the store allows that only on its first use: see store.ts).
//
// The requests themselves are built and read in src/kafka/apis/ (metadata, list-offsets,
// fetch, produce: each at the version negotiated with the broker) and sent through the transport (src/kafka/transport.ts), routed to
// the leader by broker id and counted in the metrics like every other call; this module
// adds the leader tracking, the time-bounded retry loop and the record encoding.
import { fetchRecords, uuidHex } from './apis/fetch.js';
import { EARLIEST, LATEST, listOffset } from './apis/list-offsets.js';
import { partitionLeader } from './apis/metadata.js';
import { produceRecords } from './apis/produce.js';
import type { RequestSender } from './request.js';
import type { KafkaGateway } from './types.js';
import { equalJitter } from './config.js';
import { KafkaRequestError } from './errors.js';
import { kafkaErrorInfo, toKafkaRequestError } from './errors-map.js';
import { StateTopicMissingError } from '../state/store.js';
import { MAX_CLAIM_TTL_MS } from '../state/claims.js';

export interface StateRecord {
  offset: bigint;
  key: string;
  /** null = tombstone. */
  value: string | null;
}

export interface StateWrite {
  key: string;
  value: string | null;
}

export interface StateTopicOptions {
  name: string;
  /** Replication factor when the topic is created: min(3, live brokers) by default. */
  replicationFactor?: number;
}

/**
 * UNKNOWN_TOPIC_OR_PARTITION, LEADER_NOT_AVAILABLE, NOT_LEADER_OR_FOLLOWER, REQUEST_TIMED_OUT,
 * BROKER_NOT_AVAILABLE, NETWORK_EXCEPTION, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH,
 * UNKNOWN_TOPIC_ID: the leader we know is not (or no longer) the one to ask.
 */
export const LEADER_MOVED: ReadonlySet<number> = new Set([3, 5, 6, 7, 8, 13, 74, 75, 100]);
const BACKOFF_MS = 50;
const BACKOFF_MAX_MS = 1000;
const FETCH_MAX_BYTES = 4 * 1024 * 1024;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** What the state topic needs of the gateway: its transport, and two topic operations. */
export type StateTopicKafka = RequestSender & Pick<KafkaGateway, 'describeCluster' | 'createTopics'>;

export class StateTopic {
  readonly name: string;
  readonly #kafka: StateTopicKafka;
  readonly #replicationFactor: number | undefined;
  #topicId: string | null = null;
  #leader: number | null = null;

  constructor(kafka: StateTopicKafka, opts: StateTopicOptions) {
    this.#kafka = kafka;
    this.name = opts.name;
    this.#replicationFactor = opts.replicationFactor;
  }

  /**
   * Makes sure the topic exists and learns its id and leader. `create` (default true): create
   * it when missing (compacted, 1 partition, min.compaction.lag.ms covering the longest claim
   * lease); otherwise a missing topic is a StateTopicMissingError.
   */
  async ensure(opts: { create: boolean } = { create: true }): Promise<void> {
    if (this.#topicId !== null && this.#leader !== null) return;
    const md = await this.#metadata();
    if (md === null) {
      if (!opts.create) throw new StateTopicMissingError(this.name);
      const brokers = (await this.#kafka.describeCluster()).brokers.length;
      const [result] = await this.#kafka.createTopics([
        {
          name: this.name,
          partitions: 1,
          replicationFactor: this.#replicationFactor ?? Math.max(1, Math.min(3, brokers)),
          configs: { 'cleanup.policy': 'compact', 'min.compaction.lag.ms': String(MAX_CLAIM_TTL_MS) },
        },
      ]);
      // Another instance may have created it between our check and our request: fine.
      if (result && !result.ok && result.error.code !== 36) throw new KafkaRequestError('kafka', result.error);
    }
    await this.#learn();
  }

  /** The topic's id and partition 0's leader from Metadata (null = no such topic). */
  #metadata(): Promise<{ topicId: string; leader: number } | null> {
    return partitionLeader(this.#kafka, this.name, 0);
  }

  async #learn(): Promise<void> {
    const md = await this.#metadata();
    if (md === null) throw new StateTopicMissingError(this.name);
    if (!md.topicId || /^[0-]+$/.test(md.topicId) || md.topicId === 'AAAAAAAAAAAAAAAAAAAAAA') {
      throw new KafkaRequestError('kafka', kafkaErrorInfo(-1, `State topic ${this.name} has no topic id (Fetch v13+ needs one)`));
    }
    this.#topicId = uuidHex(md.topicId);
    this.#leader = md.leader >= 0 ? md.leader : null;
    if (this.#leader === null) throw new KafkaRequestError('unavailable', kafkaErrorInfo(5, `State topic ${this.name} has no leader`));
  }

  /**
   * Runs `fn` against the leader; re-learns the leader when it moved or went away, and retries
   * until the request's time budget is spent.
   */
  async #onLeader<T>(fn: (leader: number, topicId: string) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#kafka.requestTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      try {
        if (this.#topicId === null || this.#leader === null) await this.#learn();
        return await fn(this.#leader!, this.#topicId!);
      } catch (err) {
        if (err instanceof StateTopicMissingError) throw err;
        const e = toKafkaRequestError(err);
        // A broker's definite answer that is not about leadership (e.g. 89, 29) is final.
        if (e.kind === 'kafka' && !LEADER_MOVED.has(e.kafka.code)) throw e;
        this.#leader = null;
        const wait = equalJitter(Math.min(BACKOFF_MAX_MS, BACKOFF_MS * 2 ** attempt));
        if (Date.now() + wait >= deadline) throw e.kind === 'kafka' ? new KafkaRequestError('unavailable', e.kafka, { cause: e }) : e;
        await sleep(wait);
      }
    }
  }

  /** [logStartOffset, logEndOffset) of the partition, and the topic id they belong to. */
  async offsets(): Promise<{ start: bigint; end: bigint; topicId: string }> {
    // The id from Metadata, every time: a topic re-created under the same name (same leader,
    // offsets at or beyond ours) is only visible there. With a leader known, Metadata and both
    // ListOffsets go at once (one round trip, not three: every GET of a summary waits for it,
    // and each took 40-100 ms with a 100,000-partition move under way); the offsets count only
    // if Metadata names the same topic id and leader, as the sequential order would have
    // required (a topic re-created in between is possible in either order).
    const leader = this.#leader;
    const topicId = this.#topicId;
    if (leader !== null && topicId !== null) {
      try {
        const [md, [start, end]] = await Promise.all([this.#metadata(), this.#startAndEnd(leader)]);
        if (md !== null && md.leader === leader && md.topicId && uuidHex(md.topicId) === topicId) return { start, end, topicId };
      } catch {
        // The careful way below: it re-learns the leader, retries, and reports what failed.
      }
    }
    this.#leader = null;
    return this.#onLeader(async (leader, topicId) => {
      const [start, end] = await this.#startAndEnd(leader);
      return { start, end, topicId };
    });
  }

  /** The partition's log start and end offsets, asked of `leader` at once. */
  #startAndEnd(leader: number): Promise<[bigint, bigint]> {
    return Promise.all([listOffset(this.#kafka, leader, this.name, 0, EARLIEST), listOffset(this.#kafka, leader, this.name, 0, LATEST)]);
  }

  /**
   * Every record with from <= offset < to, in offset order; a record whose key `opts.skip`
   * accepts is left out unless it is a tombstone. Keys and values are copied out as strings:
   * nothing returned keeps a fetched response buffer alive.
   */
  async read(from: bigint, to: bigint, opts: { skip?: (key: string) => boolean } = {}): Promise<StateRecord[]> {
    const out: StateRecord[] = [];
    let next = from;
    const readingId = this.#topicId;
    while (next < to) {
      const batch = await this.#onLeader(async (leader, topicId) => {
        // Re-created while we read (the leader was re-learned): these offsets mean nothing there.
        if (readingId !== null && topicId !== readingId) throw new Error(`State topic ${this.name} was re-created during a read`);
        return fetchRecords(this.#kafka, leader, this.name, topicId, 0, next, FETCH_MAX_BYTES);
      });
      let advanced = false;
      for (const b of batch) {
        for (const r of b.records) {
          const offset = b.firstOffset + BigInt(r.offsetDelta);
          if (offset < next || offset >= to) continue;
          if (r.key === null) continue; // not ours: every record we write is keyed
          const key = r.key.toString('utf8');
          if (r.value !== null && opts.skip?.(key)) continue;
          out.push({ offset, key, value: r.value === null ? null : r.value.toString('utf8') });
        }
        const last = b.firstOffset + BigInt(b.lastOffsetDelta) + 1n;
        if (last > next) {
          next = last;
          advanced = true;
        }
      }
      // Compaction can leave gaps; an empty answer below the end offset means we are done.
      if (!advanced) break;
    }
    return out;
  }

  /** Appends the records in order, acks=-1; resolves with the offset of the first. */
  async write(records: StateWrite[]): Promise<bigint> {
    if (records.length === 0) return -1n;
    return this.#onLeader((leader, topicId) =>
      produceRecords(this.#kafka, leader, this.name, 0, records, this.#kafka.requestTimeoutMs, topicId),
    );
  }
}
