// Kafka's from-scratch assignment, what `kafka-reassign-partitions.sh --generate` proposes for the
// topics it is given: AdminUtils.assignReplicasToBrokers (rack-unaware, or rack-aware over a
// rack-alternated broker list when every broker has a rack), one call per topic with the topic's
// replication factor. Kafka picks the start index and the replica shift at random; here they come
// from a seeded generator so the baseline of bench/plans is reproducible.

export interface GenerateBroker {
  readonly id: number;
  readonly rack: string | null;
}

/** Deterministic 32-bit generator (mulberry32) standing in for Kafka's Random. */
export function seededRandom(seed: number): (bound: number) => number {
  let a = seed >>> 0;
  return (bound: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return Math.floor(u * bound);
  };
}

function replicaIndex(firstReplicaIndex: number, secondReplicaShift: number, replicaIndex: number, nBrokers: number): number {
  const shift = 1 + ((secondReplicaShift + replicaIndex) % (nBrokers - 1));
  return (firstReplicaIndex + shift) % nBrokers;
}

/** Replica lists for partitions 0..nPartitions-1 of one topic. */
export function assignReplicasToBrokers(
  brokers: readonly GenerateBroker[],
  nPartitions: number,
  replicationFactor: number,
  random: (bound: number) => number,
): number[][] {
  const sorted = [...brokers].sort((a, b) => a.id - b.id);
  if (replicationFactor > sorted.length)
    throw new Error(`replication factor ${replicationFactor} larger than available brokers ${sorted.length}`);
  const rackAware = sorted.length > 0 && sorted.every((b) => b.rack !== null);
  return rackAware
    ? rackAwareAssignment(sorted, nPartitions, replicationFactor, random)
    : rackUnawareAssignment(
        sorted.map((b) => b.id),
        nPartitions,
        replicationFactor,
        random,
      );
}

function rackUnawareAssignment(ids: number[], nPartitions: number, rf: number, random: (bound: number) => number): number[][] {
  const n = ids.length;
  const startIndex = random(n);
  let nextReplicaShift = random(n);
  const out: number[][] = [];
  for (let p = 0; p < nPartitions; p++) {
    if (p > 0 && p % n === 0) nextReplicaShift++;
    const first = (p + startIndex) % n;
    const replicas = [ids[first]];
    for (let j = 0; j < rf - 1; j++) replicas.push(ids[replicaIndex(first, nextReplicaShift, j, n)]);
    out.push(replicas);
  }
  return out;
}

/** Brokers ordered rack by rack, round robin: [a0, b0, c0, a1, b1, ...]. */
export function rackAlternatedBrokerList(brokers: readonly GenerateBroker[]): number[] {
  const byRack = new Map<string, number[]>();
  for (const b of brokers) {
    const list = byRack.get(b.rack!) ?? [];
    list.push(b.id);
    byRack.set(b.rack!, list);
  }
  const racks = [...byRack.keys()].sort();
  for (const r of racks) byRack.get(r)!.sort((a, b) => a - b);
  const out: number[] = [];
  for (let i = 0; out.length < brokers.length; i++) for (const r of racks) if (i < byRack.get(r)!.length) out.push(byRack.get(r)![i]);
  return out;
}

function rackAwareAssignment(
  brokers: readonly GenerateBroker[],
  nPartitions: number,
  rf: number,
  random: (bound: number) => number,
): number[][] {
  const rackOf = new Map(brokers.map((b) => [b.id, b.rack!]));
  const numRacks = new Set(rackOf.values()).size;
  const arranged = rackAlternatedBrokerList(brokers);
  const n = arranged.length;
  const startIndex = random(n);
  let nextReplicaShift = random(n);
  const out: number[][] = [];
  for (let p = 0; p < nPartitions; p++) {
    if (p > 0 && p % n === 0) nextReplicaShift++;
    const first = (p + startIndex) % n;
    const leader = arranged[first];
    const replicas = [leader];
    const racks = new Set([rackOf.get(leader)!]);
    const used = new Set([leader]);
    let k = 0;
    for (let j = 0; j < rf - 1; j++) {
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
    out.push(replicas);
  }
  return out;
}
