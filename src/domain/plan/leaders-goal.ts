// Plan goal `leaders`: even out preferred leaders (each partition's first replica, which a
// preferred leader election makes its leader) across brokers by re-ordering replica lists only.
// No replica is added or removed: zero bytes move; applied as a reassignment, each partition is
// a pure reorder that Kafka completes at once (then elect with electLeaders: true or POST
// /leaders/elections). Pure and deterministic.
//
// Which partitions may change: those of the topics in scope, not moving now, whose preferred
// leader is one of the balanced brokers (`brokers`, default every live broker) or is not alive.
// A partition's new preferred leader is one of its replicas on a balanced broker. The others
// keep their order but count in the leader totals.
//
// Method: let T be the preferred leaders on balanced brokers (after those on dead brokers moved
// to the least-led live replica), k the balanced brokers; max - min <= 1 means every broker has
// floor(T/k) or ceil(T/k). (1) Greedy: a partition led by a broker above ceil goes to its
// least-led replica below ceil. (2) What is left: for each broker above ceil, a breadth-first
// search over "A leads a partition that B also holds" finds a chain to a broker below ceil, and
// leadership shifts along it (each broker on the way gives one and takes one). (3) The same
// from the other side for brokers below floor. When no chain exists, no assignment of these
// replica sets can do better for that broker (flow argument: the brokers reachable from it hold
// too few, or too many, leaders between them), and the plan warns LEADERS_NOT_BALANCED.
// Cost: greedy O(replicas); each chain search O(replicas) at worst, run only for what the greedy
// pass left.
import { resolveTopicScope } from './scope.js';
import { counter, type Steps } from '../steps.js';
import type { BrokerLoad, Plan, PlanCluster, PlanError, PlannedPartition, PlanRequest, PlanResult, PlanWarning } from './types.js';
import { KAFKA_ERRORS } from '../reassignment/types.js';

interface Part {
  topic: string;
  partition: number;
  replicas: readonly number[];
  bytes: number;
  sized: boolean;
  /** Broker indexes (balanced brokers only) that may lead it; empty = fixed. */
  candidates: number[];
  /** Current preferred leader: broker index when balanced, -1 otherwise. */
  leader: number;
  /** The preferred leader chosen (broker index), -1 = unchanged (fixed, or not on a balanced broker). */
  chosen: number;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function* planLeadersSteps(cluster: PlanCluster, request: PlanRequest): Steps<PlanResult> {
  const tick = counter(4096);
  const errors: PlanError[] = [];
  const warnings: PlanWarning[] = [];
  const liveIds = new Set(cluster.brokers.map((b) => b.id));
  const rackById = new Map(cluster.brokers.map((b) => [b.id, b.rack]));

  const scope = resolveTopicScope(
    cluster.topics.map((t) => t.name),
    request.topics,
    request.excludeTopics,
  );
  errors.push(...scope.errors);
  warnings.push(...scope.warnings);
  (request.brokers ?? []).forEach((b, i) => {
    if (!liveIds.has(b)) {
      errors.push({
        path: `/brokers/${i}`,
        code: 'UNKNOWN_BROKER',
        message: `Broker ${b} is not a live broker of the cluster.`,
        broker: b,
        kafkaError: KAFKA_ERRORS.INVALID_REPLICA_ASSIGNMENT,
      });
    }
  });
  if (errors.length > 0) return { ok: false, errors };
  const balanced = [...new Set(request.brokers && request.brokers.length > 0 ? request.brokers : liveIds)].sort((a, b) => a - b);
  const index = new Map(balanced.map((id, i) => [id, i]));
  const k = balanced.length;
  const scoped = new Set(scope.topics);

  // ---- partitions
  const parts: Part[] = [];
  const fixedLoad = new Int32Array(k);
  let moving = 0;
  for (const t of [...cluster.topics].sort((a, b) => byName(a.name, b.name))) {
    const list = [...t.partitions].sort((a, b) => a.partition - b.partition);
    for (const p of list) {
      if (tick()) yield;
      const first = p.replicas[0];
      const leader = first === undefined ? -1 : (index.get(first) ?? -1);
      const mayChange = scoped.has(t.name) && !p.moving && first !== undefined && (leader >= 0 || !liveIds.has(first));
      if (scoped.has(t.name) && p.moving) moving++;
      const candidates = mayChange ? p.replicas.map((b) => index.get(b)).filter((b): b is number => b !== undefined) : [];
      if (candidates.length === 0) {
        if (leader >= 0) fixedLoad[leader]++;
        parts.push({
          topic: t.name,
          partition: p.partition,
          replicas: p.replicas,
          bytes: p.bytes ?? 0,
          sized: p.bytes !== null,
          candidates,
          leader,
          chosen: -1,
        });
        continue;
      }
      parts.push({
        topic: t.name,
        partition: p.partition,
        replicas: p.replicas,
        bytes: p.bytes ?? 0,
        sized: p.bytes !== null,
        candidates,
        leader,
        chosen: leader,
      });
    }
  }
  if (moving > 0)
    warnings.push({
      code: 'PARTITIONS_MOVING',
      message: `${moving} partition(s) in scope are being reassigned now and were left as they are.`,
    });

  // ---- leadership
  const load = Int32Array.from(fixedLoad);
  const led: number[][] = Array.from({ length: k }, () => []);
  const slot = new Int32Array(parts.length).fill(-1);
  const give = (pi: number, to: number) => {
    const p = parts[pi];
    if (p.chosen >= 0) {
      const list = led[p.chosen];
      const at = slot[pi];
      const last = list.pop()!;
      if (last !== pi) {
        list[at] = last;
        slot[last] = at;
      }
      load[p.chosen]--;
    }
    p.chosen = to;
    slot[pi] = led[to].length;
    led[to].push(pi);
    load[to]++;
  };
  const free: number[] = [];
  for (let pi = 0; pi < parts.length; pi++) {
    const p = parts[pi];
    if (p.candidates.length === 0) continue;
    free.push(pi);
    if (p.leader >= 0) {
      p.chosen = -1;
      give(pi, p.leader);
    }
  }
  // Preferred leaders on dead brokers: the least-led balanced replica.
  for (const pi of free) {
    const p = parts[pi];
    if (p.chosen >= 0) continue;
    give(pi, leastLed(p.candidates, load));
    if (tick()) yield;
  }
  if (k > 0) {
    let total = 0;
    for (let b = 0; b < k; b++) total += load[b];
    const floor = Math.floor(total / k);
    const ceil = Math.ceil(total / k);
    // (1) greedy, one pass over the partitions
    for (const pi of free) {
      const p = parts[pi];
      if (load[p.chosen] <= ceil) continue;
      const to = leastLed(p.candidates, load);
      if (load[to] < ceil && load[to] + 1 < load[p.chosen]) give(pi, to);
      if (tick()) yield;
    }
    // (2) chains from brokers above ceil to brokers below it
    for (let b = 0; b < k; b++) {
      while (load[b] > ceil) {
        const chain = findChain(b, (x) => load[x] < ceil, parts, led, k, false);
        if (!chain) break;
        for (const [pi, to] of chain) give(pi, to);
        yield;
      }
    }
    // (3) chains into brokers below floor from brokers above it
    for (let b = 0; b < k; b++) {
      while (load[b] < floor) {
        const chain = findChain(b, (x) => load[x] > floor, parts, led, k, true);
        if (!chain) break;
        for (const [pi, to] of chain) give(pi, to);
        yield;
      }
    }
  }

  // ---- the result
  const changed: PlannedPartition[] = [];
  const known = new Set<number>(liveIds);
  for (const p of parts) for (const b of p.replicas) known.add(b);
  const ids = [...known].sort((a, b) => a - b);
  const beforeLeaders = new Map<number, number>();
  const afterLeaders = new Map<number, number>();
  const replicasOf = new Map<number, number>();
  const bytesOf = new Map<number, number>();
  for (const p of parts) {
    if (tick()) yield;
    const target = p.chosen >= 0 && balanced[p.chosen] !== p.replicas[0] ? reorder(p.replicas, balanced[p.chosen]) : p.replicas;
    if (p.replicas.length > 0) {
      beforeLeaders.set(p.replicas[0], (beforeLeaders.get(p.replicas[0]) ?? 0) + 1);
      afterLeaders.set(target[0], (afterLeaders.get(target[0]) ?? 0) + 1);
    }
    for (const b of p.replicas) {
      replicasOf.set(b, (replicasOf.get(b) ?? 0) + 1);
      bytesOf.set(b, (bytesOf.get(b) ?? 0) + p.bytes);
    }
    if (target !== p.replicas) {
      changed.push({
        topic: p.topic,
        partition: p.partition,
        currentReplicas: p.replicas,
        targetReplicas: target,
        adding: [],
        removing: [],
        bytes: p.sized ? p.bytes : null,
      });
    }
  }
  const loads = (leaders: Map<number, number>): BrokerLoad[] =>
    ids.map((id) => ({
      broker: id,
      rack: rackById.get(id) ?? null,
      live: liveIds.has(id),
      replicas: replicasOf.get(id) ?? 0,
      leaders: leaders.get(id) ?? 0,
      bytes: bytesOf.get(id) ?? 0,
    }));
  const after = loads(afterLeaders);
  if (k > 0) {
    const counts = balanced.map((id) => afterLeaders.get(id) ?? 0);
    const max = Math.max(...counts);
    const min = Math.min(...counts);
    if (max - min > 1) {
      warnings.push({
        code: 'LEADERS_NOT_BALANCED',
        message: `Preferred leaders per broker still differ by ${max - min} (max ${max}, min ${min}): the replica sets allow no better without moving data (goal rebalance moves replicas).`,
      });
    }
  }
  const plan: Plan = {
    goal: 'leaders',
    partitions: changed,
    movedReplicas: 0,
    movedBytes: 0,
    lowerBound: { movedReplicas: 0, movedBytes: 0 },
    before: loads(beforeLeaders),
    after,
    warnings,
    options: { rackAware: false, balanceLeaders: true, weight: 'replicas', brokers: balanced, topics: scope.topics.length },
  };
  return { ok: true, plan };
}

/** `replicas` with `leader` moved to the front, the others in their order. */
export function reorder(replicas: readonly number[], leader: number): number[] {
  return [leader, ...replicas.filter((b) => b !== leader)];
}

function leastLed(candidates: readonly number[], load: Int32Array): number {
  let best = candidates[0];
  for (const c of candidates) if (load[c] < load[best] || (load[c] === load[best] && c < best)) best = c;
  return best;
}

/**
 * A chain of leadership shifts, each (partition, new leader). Forward (`reverse` false): from
 * `start`, which gives one, to a broker `wanted` accepts, which takes one. Reverse: into `start`
 * from a broker `wanted` accepts. Breadth-first over brokers (the shortest chain); the brokers in
 * between each give one and take one. Edge a -> b: a leads a partition b also holds.
 */
function findChain(
  start: number,
  wanted: (b: number) => boolean,
  parts: readonly Part[],
  led: readonly number[][],
  k: number,
  reverse: boolean,
): [number, number][] | null {
  const parent = new Int32Array(k).fill(-1);
  const via = new Int32Array(k).fill(-1);
  const seen = new Uint8Array(k);
  seen[start] = 1;
  const queue = [start];
  let end = -1;
  for (let q = 0; q < queue.length && end < 0; q++) {
    const u = queue[q];
    if (!reverse) {
      for (const pi of led[u]) {
        for (const v of parts[pi].candidates) {
          if (seen[v]) continue;
          seen[v] = 1;
          parent[v] = u;
          via[v] = pi;
          if (wanted(v)) end = v;
          else queue.push(v);
          if (end >= 0) break;
        }
        if (end >= 0) break;
      }
    } else {
      for (let v = 0; v < k && end < 0; v++) {
        if (seen[v]) continue;
        const pi = led[v].find((x) => parts[x].candidates.includes(u));
        if (pi === undefined) continue;
        seen[v] = 1;
        parent[v] = u;
        via[v] = pi;
        if (wanted(v)) end = v;
        else queue.push(v);
      }
    }
  }
  if (end < 0) return null;
  const steps: [number, number][] = [];
  // Forward: via[v] (led by parent[v]) goes to v. Reverse: via[v] (led by v) goes to parent[v].
  for (let v = end; v !== start; v = parent[v]!) steps.push(reverse ? [via[v], parent[v]] : [via[v], v]);
  return steps;
}
