// Log dirs of the simulated brokers (JBOD): which dir of a broker holds each of its replicas,
// intra-broker moves started by AlterReplicaLogDirs (34) and what DescribeLogDirs (35) reports.
//
// Modelled on Kafka's ReplicaManager.alterReplicaLogDirs and LogManager:
// - every broker has the same `log.dirs` (SimulatorOptions.logDirs; default one dir,
//   /var/lib/kafka/data-<brokerId>, as before); a dir can be taken offline
//   (Simulator.logDirs.setOffline) to answer KAFKA_STORAGE_ERROR as a failed disk does;
// - a replica's dir, until moved, is `dirs[(hash(topic) + partition) % dirs.length]`:
//   deterministic and spread like LogManager's least-loaded choice for an even load;
// - a move copies the replica into a "future" replica in the destination dir (listed by
//   DescribeLogDirs with is_future_key true) and swaps when the copy is done; a move to
//   another dir replaces a running one (Kafka removes the old future replica), a move to
//   the replica's current dir cancels a running one and is a no-op otherwise;
// - the copy runs at `replica.alter.log.dirs.io.max.bytes.per.second` of the broker (read
//   at each step, so a changed rate applies from the next observation); unset = not
//   throttled, which this model treats as done at once (disk speed is not modelled).
//   Progress is a function of the injectable clock and is settled when a request reads it.
// Not modelled: a replica's size changing during the copy (the future replica copies the
// size at the start, then catches up at once), the partition being reassigned away during
// the copy (the move is simply dropped), and different dirs per broker.
import type { Clock } from './clock.js';

// Long.MAX_VALUE (2^63 - 1) is 2^63 as a double.
const LONG_MAX = 2 ** 63;

export const LOG_DIR_THROTTLE = 'replica.alter.log.dirs.io.max.bytes.per.second';

export interface LogDirsHost {
  /** Does `brokerId` host a replica of topic-partition now? */
  hosts(brokerId: number, topic: string, partition: number): boolean;
  /** Bytes of that replica's log on that broker (0 when unknown). */
  sizeBytes(brokerId: number, topic: string, partition: number): number;
  /** Effective broker config value, null when unset. */
  brokerConfig(brokerId: number, name: string): string | null;
}

interface FutureReplica {
  readonly dir: string;
  readonly totalBytes: number;
  copiedBytes: number;
  lastAt: number;
}

export interface FutureReplicaView {
  readonly dir: string;
  readonly totalBytes: number;
  readonly copiedBytes: number;
}

/** Result of asking for one replica's move, an error code of Kafka's (0 = accepted). */
export type AlterLogDirResult = 0 | 56 | 57 | 9 | 3;

const key = (brokerId: number, topic: string, partition: number): string => `${brokerId}\u0000${topic}\u0000${partition}`;

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return Math.abs(h);
}

export class LogDirs {
  /** Replicas moved off their default dir: key -> dir. */
  private readonly placed = new Map<string, string>();
  private readonly futures = new Map<string, FutureReplica>();
  private readonly offline = new Set<string>();

  constructor(
    private readonly dirsOf: (brokerId: number) => readonly string[],
    private readonly clock: Clock,
    private readonly host: LogDirsHost,
  ) {}

  /** The broker's log dirs (its `log.dirs`). */
  dirs(brokerId: number): readonly string[] {
    return this.dirsOf(brokerId);
  }

  /** Take a dir offline (a failed disk) or bring it back. Throws on a dir the broker lacks. */
  setOffline(brokerId: number, dir: string, offline: boolean): void {
    if (!this.dirsOf(brokerId).includes(dir)) throw new RangeError(`broker ${brokerId} has no log dir ${dir}`);
    if (offline) this.offline.add(`${brokerId}\u0000${dir}`);
    else this.offline.delete(`${brokerId}\u0000${dir}`);
  }

  isOnline(brokerId: number, dir: string): boolean {
    return !this.offline.has(`${brokerId}\u0000${dir}`);
  }

  /**
   * Whether any replica of this broker was placed explicitly or is moving between dirs. When
   * not, every replica is in its default dir (defaultDirIndex) and has no future replica:
   * readers over all of a broker's replicas can skip the per-replica lookups.
   */
  hasPlacements(brokerId: number): boolean {
    const prefix = `${brokerId}\u0000`;
    for (const k of this.placed.keys()) if (k.startsWith(prefix)) return true;
    for (const k of this.futures.keys()) if (k.startsWith(prefix)) return true;
    return false;
  }

  /** The default dir of a topic's partition on a broker with `dirCount` dirs: the index into dirs(broker). */
  static defaultDirIndex(topicHash: number, partition: number, dirCount: number): number {
    return (topicHash + partition) % dirCount;
  }

  static topicHash(topic: string): number {
    return hash(topic);
  }

  /** The dir holding the (current) replica. */
  dirOf(brokerId: number, topic: string, partition: number): string {
    this.settle(brokerId, topic, partition);
    const dirs = this.dirsOf(brokerId);
    return this.placed.get(key(brokerId, topic, partition)) ?? dirs[LogDirs.defaultDirIndex(hash(topic), partition, dirs.length)];
  }

  /** The running move of a replica, settled to now; undefined when none. */
  future(brokerId: number, topic: string, partition: number): FutureReplicaView | undefined {
    this.settle(brokerId, topic, partition);
    const f = this.futures.get(key(brokerId, topic, partition));
    return f && { dir: f.dir, totalBytes: f.totalBytes, copiedBytes: Math.floor(f.copiedBytes) };
  }

  /**
   * ReplicaManager.alterReplicaLogDirs for one replica: a dir not in log.dirs ->
   * LOG_DIR_NOT_FOUND (57); an offline dir -> KAFKA_STORAGE_ERROR (56); a topic-partition that
   * does not exist -> UNKNOWN_TOPIC_OR_PARTITION (3, `exists` false); a replica this broker
   * does not host -> REPLICA_NOT_AVAILABLE (9), remembering the dir as the one the replica
   * will be created in should the broker get it later (Kafka's preferred log dir, which
   * kafka-reassign-partitions.sh relies on for log_dirs of new replicas); else 0 and the copy
   * starts (or is replaced).
   */
  alter(brokerId: number, topic: string, partition: number, dir: string, exists: boolean): AlterLogDirResult {
    if (!this.dirsOf(brokerId).includes(dir)) return 57;
    if (!this.isOnline(brokerId, dir)) return 56;
    if (!exists) return 3;
    const k = key(brokerId, topic, partition);
    if (!this.host.hosts(brokerId, topic, partition)) {
      // LogManager.maybeUpdatePreferredLogDir: a replica created on this broker later (a
      // reassignment adding it) starts in that dir; the answer is still 9.
      this.futures.delete(k);
      this.placed.set(k, dir);
      return 9;
    }
    const current = this.dirOf(brokerId, topic, partition);
    const running = this.futures.get(k);
    if (running !== undefined && running.dir === dir) return 0;
    this.futures.delete(k);
    if (current === dir) return 0;
    this.futures.set(k, { dir, totalBytes: this.host.sizeBytes(brokerId, topic, partition), copiedBytes: 0, lastAt: this.clock.now() });
    this.settle(brokerId, topic, partition);
    return 0;
  }

  /** Bytes/s of the intra-broker copy on a broker; Infinity when not throttled. */
  rate(brokerId: number): number {
    const raw = this.host.brokerConfig(brokerId, LOG_DIR_THROTTLE);
    const n = raw === null ? NaN : Number(raw);
    return Number.isFinite(n) && n >= 0 && n < LONG_MAX ? n : Infinity;
  }

  private settle(brokerId: number, topic: string, partition: number): void {
    const k = key(brokerId, topic, partition);
    const f = this.futures.get(k);
    if (f === undefined) return;
    if (!this.host.hosts(brokerId, topic, partition)) {
      this.futures.delete(k);
      this.placed.delete(k);
      return;
    }
    const now = this.clock.now();
    const rate = this.rate(brokerId);
    const elapsed = Math.max(0, now - f.lastAt) / 1000;
    f.copiedBytes = rate === Infinity ? f.totalBytes : Math.min(f.totalBytes, f.copiedBytes + rate * elapsed);
    f.lastAt = now;
    if (f.copiedBytes >= f.totalBytes) {
      this.futures.delete(k);
      this.placed.set(k, f.dir);
    }
  }
}
