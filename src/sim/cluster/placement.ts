// Replica placement: a port of KRaft's StripedReplicaPlacer, driven by a pluggable random source
// so that placement is deterministic in tests.
import { ErrorCode, KafkaError } from './errors.js';

export interface PlacementRandom {
  /** Uniform int in [0, bound). */
  nextInt(bound: number): number;
}

/** Always 0: no shuffling and no random offsets -> pure striped round-robin (the default). */
export const ZERO_RANDOM: PlacementRandom = { nextInt: () => 0 };

const MULT = 0x5deece66dn;
const MASK = (1n << 48n) - 1n;

/** java.util.Random, bit-compatible (seedable, deterministic). */
export class JavaRandom implements PlacementRandom {
  private seed: bigint;
  constructor(seed: number | bigint) {
    this.seed = (BigInt(seed) ^ MULT) & MASK;
  }
  private next(bits: number): number {
    this.seed = (this.seed * MULT + 0xbn) & MASK;
    return Number(BigInt.asIntN(32, this.seed >> BigInt(48 - bits)));
  }
  nextInt(bound: number): number {
    if (!(bound > 0)) throw new RangeError('bound must be positive');
    let r = this.next(31);
    const m = bound - 1;
    if ((bound & m) === 0) return Number((BigInt(bound) * BigInt(r)) >> 31n);
    for (let u = r; ((u - (r = u % bound) + m) | 0) < 0; u = this.next(31));
    return r;
  }
}

export interface PlacementBroker {
  id: number;
  rack: string | null;
  fenced: boolean;
}

function shuffle<T>(list: T[], random: PlacementRandom): void {
  // Collections.shuffle for RandomAccess lists
  for (let i = list.length; i > 1; i--) {
    const j = random.nextInt(i);
    const t = list[i - 1];
    list[i - 1] = list[j];
    list[j] = t;
  }
}

class BrokerList {
  readonly brokers: number[] = [];
  private index = 0;
  private offset = 0;
  private epoch = 0;
  initialize(random: PlacementRandom): void {
    if (this.brokers.length > 0) {
      this.brokers.sort((a, b) => a - b);
      this.offset = random.nextInt(this.brokers.length);
    }
  }
  shuffle(random: PlacementRandom): void {
    shuffle(this.brokers, random);
  }
  next(epoch: number): number {
    if (this.brokers.length === 0) return -1;
    if (this.epoch !== epoch) {
      this.epoch = epoch;
      this.index = 0;
      this.offset = (this.offset + 1) % this.brokers.length;
    }
    if (this.index >= this.brokers.length) return -1;
    const broker = this.brokers[(this.index + this.offset) % this.brokers.length];
    this.index++;
    return broker;
  }
}

class Rack {
  readonly fenced = new BrokerList();
  readonly unfenced = new BrokerList();
  initialize(random: PlacementRandom): void {
    this.fenced.initialize(random);
    this.unfenced.initialize(random);
  }
  shuffle(random: PlacementRandom): void {
    this.fenced.shuffle(random);
    this.unfenced.shuffle(random);
  }
  nextUnfenced(epoch: number): number {
    return this.unfenced.next(epoch);
  }
  next(epoch: number): number {
    const r = this.unfenced.next(epoch);
    return r >= 0 ? r : this.fenced.next(epoch);
  }
}

function invalidRf(message: string): KafkaError {
  return new KafkaError(ErrorCode.INVALID_REPLICATION_FACTOR, message);
}

function checkNonPositive(rf: number): void {
  if (rf <= 0) throw invalidRf(`Invalid replication factor ${rf}: the replication factor must be positive.`);
}
function checkZeroUnfenced(n: number): void {
  if (n === 0) throw invalidRf('All brokers are currently fenced.');
}
function checkTooFew(rf: number, total: number): void {
  if (rf > total) {
    throw invalidRf(`The target replication factor of ${rf} cannot be reached because only ${total} broker(s) are registered.`);
  }
}

class RackList {
  private readonly racks = new Map<string | null, Rack>();
  private readonly rackNames: (string | null)[] = [];
  readonly numTotalBrokers: number;
  readonly numUnfencedBrokers: number;
  private epoch = 0;
  private offset: number;

  constructor(
    private readonly random: PlacementRandom,
    brokers: readonly PlacementBroker[],
  ) {
    let total = 0;
    let unfenced = 0;
    for (const b of brokers) {
      let rack = this.racks.get(b.rack);
      if (!rack) {
        rack = new Rack();
        this.racks.set(b.rack, rack);
        this.rackNames.push(b.rack);
      }
      if (b.fenced) rack.fenced.brokers.push(b.id);
      else {
        unfenced++;
        rack.unfenced.brokers.push(b.id);
      }
      total++;
    }
    // OptionalStringComparator: empty (no rack) first, then by name
    this.rackNames.sort((a, b) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1));
    for (const name of this.rackNames) this.racks.get(name)!.initialize(random);
    this.numTotalBrokers = total;
    this.numUnfencedBrokers = unfenced;
    this.offset = this.rackNames.length === 0 ? 0 : random.nextInt(this.rackNames.length);
  }

  place(rf: number): number[] {
    checkNonPositive(rf);
    checkTooFew(rf, this.numTotalBrokers);
    checkZeroUnfenced(this.numUnfencedBrokers);
    if (this.epoch === this.numUnfencedBrokers && this.numUnfencedBrokers > 1) {
      shuffle(this.rackNames, this.random);
      for (const name of this.rackNames) this.racks.get(name)!.shuffle(this.random);
      this.epoch = 0;
    }
    if (this.offset === this.rackNames.length) this.offset = 0;
    const out: number[] = [];
    let firstRackIndex = this.offset;
    for (;;) {
      const r = this.racks.get(this.rackNames[firstRackIndex])!.nextUnfenced(this.epoch);
      if (r >= 0) {
        out.push(r);
        break;
      }
      firstRackIndex++;
      if (firstRackIndex === this.rackNames.length) firstRackIndex = 0;
    }
    let rackIndex = this.offset;
    for (let replica = 1; replica < rf; replica++) {
      let result = -1;
      do {
        if (rackIndex === firstRackIndex) firstRackIndex = -1;
        else result = this.racks.get(this.rackNames[rackIndex])!.next(this.epoch);
        rackIndex++;
        if (rackIndex === this.rackNames.length) rackIndex = 0;
      } while (result < 0);
      out.push(result);
    }
    this.epoch++;
    this.offset++;
    return out;
  }
}

/**
 * Place `numPartitions` partitions of `replicationFactor` replicas (StripedReplicaPlacer.place).
 * Leaders are always unfenced brokers; followers prefer unfenced brokers and distinct racks.
 * Throws KafkaError(INVALID_REPLICATION_FACTOR) with the placer's own message (no prefix).
 */
export function placeReplicas(
  brokers: readonly PlacementBroker[],
  numPartitions: number,
  replicationFactor: number,
  random: PlacementRandom = ZERO_RANDOM,
): number[][] {
  const rackList = new RackList(random, brokers);
  checkNonPositive(replicationFactor);
  checkZeroUnfenced(rackList.numUnfencedBrokers);
  checkTooFew(replicationFactor, rackList.numTotalBrokers);
  const out: number[][] = [];
  for (let p = 0; p < numPartitions; p++) out.push(rackList.place(replicationFactor));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Classic assignment (AdminUtils.assignReplicasToBrokers, rack-aware variant), deterministic:
// leaders walk a rack-alternated broker list round-robin, followers are shifted and spread over
// distinct racks. Used by default because it spreads leaders evenly with no randomness.

function rackAlternatedBrokerList(brokers: readonly { id: number; rack: string }[]): number[] {
  const byRack = new Map<string, number[]>();
  for (const b of brokers) {
    const list = byRack.get(b.rack) ?? [];
    list.push(b.id);
    byRack.set(b.rack, list);
  }
  for (const l of byRack.values()) l.sort((a, b) => a - b);
  const racks = [...byRack.keys()].sort();
  const iters = new Map(racks.map((r) => [r, 0]));
  const out: number[] = [];
  let rackIndex = 0;
  while (out.length < brokers.length) {
    const r = racks[rackIndex];
    const i = iters.get(r)!;
    const list = byRack.get(r)!;
    if (i < list.length) {
      out.push(list[i]);
      iters.set(r, i + 1);
    }
    rackIndex = (rackIndex + 1) % racks.length;
  }
  return out;
}

function replicaIndex(first: number, secondReplicaShift: number, k: number, n: number): number {
  const shift = 1 + ((secondReplicaShift + k) % (n - 1));
  return (first + shift) % n;
}

export interface ClassicPlacementOptions {
  /** Partition id of the first partition placed (createPartitions continues the sequence). */
  startPartitionId?: number;
  /** Index in the rack-alternated list where partition 0's leader sits (default 0). */
  startIndex?: number;
}

/**
 * Rack-aware classic assignment over the unfenced brokers. When the replication factor exceeds
 * the unfenced brokers but not the registered ones, fenced brokers fill the remaining follower
 * slots (as KRaft does); the leader is always unfenced. Brokers without a rack share one "rack".
 */
export function placeReplicasClassic(
  brokers: readonly PlacementBroker[],
  numPartitions: number,
  replicationFactor: number,
  opts: ClassicPlacementOptions = {},
): number[][] {
  checkNonPositive(replicationFactor);
  const live = brokers.filter((b) => !b.fenced);
  checkZeroUnfenced(live.length);
  checkTooFew(replicationFactor, brokers.length);
  const fenced = brokers
    .filter((b) => b.fenced)
    .map((b) => b.id)
    .sort((a, b) => a - b);
  const rackOf = new Map(live.map((b) => [b.id, b.rack ?? '']));
  const arranged = rackAlternatedBrokerList(live.map((b) => ({ id: b.id, rack: b.rack ?? '' })));
  const n = arranged.length;
  const numRacks = new Set(rackOf.values()).size;
  const liveRf = Math.min(replicationFactor, n);
  const startIndex = (opts.startIndex ?? 0) % n;
  let current = Math.max(0, opts.startPartitionId ?? 0);
  let nextReplicaShift = startIndex; // AdminUtils: the fixed start index also seeds the shift
  const out: number[][] = [];
  for (let i = 0; i < numPartitions; i++) {
    if (current > 0 && current % n === 0) nextReplicaShift++;
    const first = (current + startIndex) % n;
    const leader = arranged[first];
    const replicas = [leader];
    const racks = new Set([rackOf.get(leader)!]);
    const used = new Set([leader]);
    let k = 0;
    for (let j = 0; j < liveRf - 1; j++) {
      for (;;) {
        const broker = arranged[replicaIndex(first, nextReplicaShift * numRacks, k, n)];
        const rack = rackOf.get(broker)!;
        k++;
        if ((!racks.has(rack) || racks.size === numRacks) && (!used.has(broker) || used.size === n)) {
          replicas.push(broker);
          racks.add(rack);
          used.add(broker);
          break;
        }
      }
    }
    for (const f of fenced) {
      if (replicas.length >= replicationFactor) break;
      replicas.push(f);
    }
    out.push(replicas);
    current++;
  }
  return out;
}
