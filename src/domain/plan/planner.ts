// Reassignment plans for the jobs operators do: decommission, rebalance, replication factor, rack
// repair. Pure and deterministic: plain data in, plain data out, no clock, no randomness.
//
// Minimal movement (DataDog's topicmappr): a replica moves only when the goal needs it to, and a
// moved replica takes the place of the one it replaces in the replica list. Where it goes is the
// best candidate by, in this order: a rack the partition does not use yet (rackAware), the
// fewest replicas of the same topic (so every topic stays spread as Kafka's `--generate` spreads
// the topics it is given), the least total load (replica count, or bytes with weight=bytes), the
// lowest broker id. Preferred leaders are then evened out by reordering replicas (no data moves).
//
// Cost: linear in replicas for the moves, times the broker count when picking a destination
// (100 brokers); the per-topic evening sorts each topic's replicas once.
import { KAFKA_ERRORS } from '../reassignment/types.js';
import { assignCeilSlotsSteps } from './ceil-slots.js';
import { lowerBoundSteps, type BoundPartition } from './lower-bound.js';
import { resolveTopicScope } from './scope.js';
import { planLeadersSteps } from './leaders-goal.js';
import { counter, drain, type Steps } from '../steps.js';
import type { BrokerLoad, Plan, PlanCluster, PlanError, PlannedPartition, PlanRequest, PlanResult, PlanWarning, PlanWeight } from './types.js';

/** Internal partition: replicas as broker indexes, `target` mutated by the goal. */
interface Part {
  readonly topic: number;
  readonly partition: number;
  readonly original: readonly number[];
  target: number[];
  readonly bytes: number;
  readonly sized: boolean;
  /** May be changed: topic in scope and not moving. */
  readonly free: boolean;
}

/** Everything a goal works on. Broker indexes 0..K-1 follow ascending broker id. */
interface Model {
  readonly ids: number[];
  readonly racks: (string | null)[];
  /** Rack key per broker: its rack, or a key of its own when it has none. */
  readonly rackKey: string[];
  readonly live: boolean[];
  /** May receive replicas. */
  readonly eligible: boolean[];
  readonly eligibleList: number[];
  readonly topicNames: string[];
  /** Partitions per topic index (all topics, in scope or not). */
  readonly byTopic: Part[][];
  readonly inScope: boolean[];
  readonly parts: Part[];
  readonly rackAware: boolean;
  readonly weight: PlanWeight;
  /** Running totals while planning (targets). */
  readonly count: Int32Array;
  readonly bytes: Float64Array;
  readonly warnings: PlanWarning[];
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function planReassignment(cluster: PlanCluster, request: PlanRequest): PlanResult {
  return drain(planReassignmentSteps(cluster, request));
}

/**
 * planReassignment in steps: the same computation, yielding between pieces of a few thousand
 * replicas' work so that a caller on the event loop can let other work run (src/plan slices it).
 */
export function* planReassignmentSteps(cluster: PlanCluster, request: PlanRequest): Steps<PlanResult> {
  // Goal `leaders` moves no replica: its own file (re-orders only).
  if (request.goal === 'leaders') return yield* planLeadersSteps(cluster, request);
  const tick = counter(2048);
  const errors: PlanError[] = [];
  const warnings: PlanWarning[] = [];

  // ---- brokers: live ones and every one a replica names
  const liveIds = new Set(cluster.brokers.map((b) => b.id));
  const rackById = new Map(cluster.brokers.map((b) => [b.id, b.rack]));
  const known = new Set(liveIds);
  for (const t of cluster.topics) {
    for (const p of t.partitions) {
      for (const b of p.replicas) known.add(b);
      if (tick()) yield;
    }
  }
  const ids = [...known].sort((a, b) => a - b);
  const index = new Map(ids.map((id, i) => [id, i]));
  // Broker ids are small integers in practice: a dense table beats a Map lookup per replica (300,000 of them).
  const dense = ids.length > 0 && ids[ids.length - 1]! < 1 << 20 ? new Int32Array(ids[ids.length - 1]! + 1) : null;
  if (dense) ids.forEach((id, i) => (dense[id] = i));
  const indexOf = dense ? (b: number) => dense[b]! : (b: number) => index.get(b)!;
  const racks = ids.map((id) => rackById.get(id) ?? null);
  const live = ids.map((id) => liveIds.has(id));

  // ---- scope
  const topicNames = cluster.topics.map((t) => t.name);
  const scope = resolveTopicScope(topicNames, request.topics, request.excludeTopics);
  errors.push(...scope.errors);
  warnings.push(...scope.warnings);
  const scoped = new Set(scope.topics);

  // ---- requested brokers
  const requested = request.brokers ?? [];
  const seen = new Set<number>();
  requested.forEach((b, i) => {
    const ok = request.goal === 'decommission' ? known.has(b) : liveIds.has(b);
    if (!ok) {
      errors.push({
        path: `/brokers/${i}`,
        code: 'UNKNOWN_BROKER',
        message:
          request.goal === 'decommission'
            ? `Broker ${b} is not in the cluster: it is not alive and holds no replica.`
            : `Broker ${b} is not a live broker of the cluster (live: ${[...liveIds].sort((x, y) => x - y).join(', ') || 'none'}).`,
        broker: b,
        kafkaError: KAFKA_ERRORS.INVALID_REPLICA_ASSIGNMENT,
      });
    }
    seen.add(b);
  });

  const rf = request.replicationFactor;
  if (request.goal === 'replication-factor') {
    if (rf === undefined) errors.push({ path: '/replicationFactor', code: 'MISSING_FIELD', message: 'replicationFactor is required for goal replication-factor.', kafkaError: null });
    if (!request.topics || request.topics.length === 0) {
      errors.push({ path: '/topics', code: 'MISSING_FIELD', message: 'topics is required for goal replication-factor: name the topics (or /patterns/) whose factor changes.', kafkaError: null });
    }
  }
  if (request.goal === 'decommission' && requested.length === 0) {
    errors.push({ path: '/brokers', code: 'MISSING_FIELD', message: 'brokers is required for goal decommission: the brokers to empty.', kafkaError: null });
  }

  // Destinations: decommission = live brokers not removed; otherwise the requested set or every live broker.
  const removed = new Set(request.goal === 'decommission' ? requested.filter((b) => known.has(b)) : []);
  const destinationIds =
    request.goal === 'decommission' ? [...liveIds].filter((b) => !removed.has(b)) : requested.length > 0 ? [...seen].filter((b) => liveIds.has(b)) : [...liveIds];
  destinationIds.sort((a, b) => a - b);

  // Replication factors that cannot fit the destinations.
  if (errors.length === 0) {
    for (const t of cluster.topics) {
      if (!scoped.has(t.name)) continue;
      let needed = request.goal === 'replication-factor' ? rf! : 0;
      if (request.goal !== 'replication-factor') for (const p of t.partitions) needed = Math.max(needed, p.replicas.length);
      if (tick()) yield;
      if (request.goal === 'decommission') {
        // Replicas of a partition that are not removed stay; the rest need distinct new homes.
        if (needed > destinationIds.length) {
          errors.push({
            path: '/brokers',
            code: 'NOT_ENOUGH_BROKERS',
            message: `Removing broker(s) ${[...removed].join(', ')} would leave ${destinationIds.length} live broker(s), fewer than the replication factor ${needed} of topic ${t.name}.`,
            topic: t.name,
            kafkaError: KAFKA_ERRORS.INVALID_REPLICATION_FACTOR,
          });
        }
      } else if (request.goal === 'replication-factor' && needed > destinationIds.length) {
        errors.push({
          path: '/replicationFactor',
          code: 'REPLICATION_FACTOR_TOO_LARGE',
          message: `Replication factor ${needed} for topic ${t.name} is larger than the ${destinationIds.length} broker(s) replicas may go to.`,
          topic: t.name,
          kafkaError: KAFKA_ERRORS.INVALID_REPLICATION_FACTOR,
        });
      }
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  // ---- the model
  const hasRacks = destinationIds.some((b) => rackById.get(b) != null);
  const rackAware = request.rackAware ?? hasRacks;
  if (rackAware && !hasRacks) {
    warnings.push({ code: 'NO_RACKS', message: 'rackAware was requested but no destination broker has a rack (broker.rack): replicas are placed without rack constraints.' });
  } else if (rackAware && destinationIds.some((b) => rackById.get(b) == null)) {
    warnings.push({ code: 'MISSING_RACKS', message: `Broker(s) ${destinationIds.filter((b) => rackById.get(b) == null).join(', ')} have no rack: each counts as a rack of its own.` });
  }
  const weight = request.weight ?? 'replicas';
  const eligible = ids.map((id) => destinationIds.includes(id));
  const topicOrder = cluster.topics.map((t, i) => i).sort((a, b) => byName(topicNames[a]!, topicNames[b]!));
  const byTopic: Part[][] = cluster.topics.map(() => []);
  const inScope = topicNames.map((n) => scoped.has(n));
  const parts: Part[] = [];
  let moving = 0;
  let unsized = 0;
  for (const ti of topicOrder) {
    const t = cluster.topics[ti]!;
    const list = isSortedByPartition(t.partitions) ? t.partitions : [...t.partitions].sort((a, b) => a.partition - b.partition);
    for (const p of list) {
      const replicas = new Array<number>(p.replicas.length);
      for (let j = 0; j < replicas.length; j++) replicas[j] = indexOf(p.replicas[j]!);
      const free = inScope[ti]! && !p.moving;
      if (inScope[ti] && p.moving) moving++;
      if (free && p.bytes === null) unsized++;
      const part: Part = { topic: ti, partition: p.partition, original: replicas, target: [...replicas], bytes: p.bytes ?? 0, sized: p.bytes !== null, free };
      byTopic[ti]!.push(part);
      parts.push(part);
      if (tick()) yield;
    }
  }
  if (moving > 0) warnings.push({ code: 'PARTITIONS_MOVING', message: `${moving} partition(s) in scope are being reassigned now and were left as they are.` });
  if (unsized > 0 && (weight === 'bytes' || request.goal !== 'rebalance')) {
    warnings.push({ code: 'SIZES_UNKNOWN', message: `The size of ${unsized} partition(s) is unknown (no log dir answered): they count as 0 bytes.` });
  }

  const count = new Int32Array(ids.length);
  const bytes = new Float64Array(ids.length);
  for (const p of parts) for (const b of p.target) (count[b]++, (bytes[b] += p.bytes));
  const m: Model = {
    ids,
    racks,
    rackKey: ids.map((id, i) => racks[i] ?? `\u0000broker-${id}`),
    live,
    eligible,
    eligibleList: ids.map((_, i) => i).filter((i) => eligible[i]),
    topicNames,
    byTopic,
    inScope,
    parts,
    rackAware: rackAware && hasRacks,
    weight,
    count,
    bytes,
    warnings,
  };

  yield;
  const before = yield* loads(m, (p) => p.original);
  const evenTotals = !scope.filtered;
  switch (request.goal) {
    case 'decommission':
      yield* decommission(m, new Set([...removed].map((b) => index.get(b)!)));
      break;
    case 'replication-factor':
      yield* replicationFactor(m, rf!);
      break;
    case 'rack-repair':
      yield* rackRepair(m);
      break;
    case 'rebalance':
      if (weight === 'bytes') yield* rebalanceBytes(m);
      else yield* rebalanceCounts(m, evenTotals);
      break;
  }
  const balanceLeaders = request.balanceLeaders ?? true;
  if (balanceLeaders) yield* balancePreferredLeaders(m);

  // ---- the result
  const changed: PlannedPartition[] = [];
  let movedReplicas = 0;
  let movedBytes = 0;
  for (const p of parts) {
    if (sameList(p.original, p.target)) continue;
    const adding = p.target.filter((b) => !p.original.includes(b));
    movedReplicas += adding.length;
    movedBytes += adding.length * p.bytes;
    changed.push({
      topic: topicNames[p.topic]!,
      partition: p.partition,
      currentReplicas: p.original.map((b) => ids[b]!),
      targetReplicas: p.target.map((b) => ids[b]!),
      adding: adding.map((b) => ids[b]!),
      removing: p.original.filter((b) => !p.target.includes(b)).map((b) => ids[b]!),
      bytes: p.sized ? p.bytes : null,
    });
    if (tick()) yield;
  }

  const topicIndex = new Map(topicNames.map((n, i) => [n, i]));
  const boundParts: BoundPartition[] = [];
  for (const t of cluster.topics) {
    if (!scoped.has(t.name)) continue;
    const topic = topicIndex.get(t.name)!;
    for (const p of t.partitions) {
      if (!p.moving) boundParts.push({ topic, replicas: p.replicas, bytes: p.bytes ?? 0 });
      if (tick()) yield;
    }
  }
  const bound = yield* lowerBoundSteps({
    goal: request.goal,
    weight,
    partitions: boundParts,
    removed,
    brokers: request.goal === 'rebalance' ? destinationIds : destinationIds,
    evenTotals,
    ...(rf !== undefined && { replicationFactor: rf }),
    ...(m.rackAware && { rackOf: (b: number) => rackById.get(b) ?? `\u0000broker-${b}` }),
  });

  const after = yield* loads(m, (p) => p.target);
  yield* checkGoal(m, request, removed, destinationIds, evenTotals, after, warnings);
  if (balanceLeaders) checkLeaders(m, after, warnings);

  const plan: Plan = {
    goal: request.goal,
    partitions: changed,
    movedReplicas,
    movedBytes,
    lowerBound: bound,
    before,
    after,
    warnings,
    options: { rackAware: m.rackAware, balanceLeaders, weight, brokers: destinationIds, topics: scope.topics.length },
  };
  return { ok: true, plan };
}

// ================================================================================== goals

/** Every replica on a removed broker goes to the best destination; nothing else moves. */
function* decommission(m: Model, removed: ReadonlySet<number>): Steps<void> {
  const tc = new Int32Array(m.ids.length);
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti]!;
    topicCounts(list, tc);
    for (const p of list) {
      if (!p.free) continue;
      for (let i = 0; i < p.target.length; i++) {
        const from = p.target[i]!;
        if (!removed.has(from)) continue;
        const to = pickDestination(m, p, i, tc, removed);
        if (to < 0) continue; // cannot happen once NOT_ENOUGH_BROKERS passed; checkGoal reports it
        replace(m, p, i, to, tc);
      }
    }
    yield;
  }
}

/** Adds replicas on the best brokers, or drops the least useful ones; existing replicas stay. */
function* replicationFactor(m: Model, rf: number): Steps<void> {
  const tc = new Int32Array(m.ids.length);
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti]!;
    topicCounts(list, tc);
    for (const p of list) {
      if (!p.free) continue;
      while (p.target.length < rf) {
        const to = pickDestination(m, p, -1, tc, null);
        if (to < 0) break;
        p.target.push(to);
        m.count[to]++;
        m.bytes[to] += p.bytes;
        tc[to]++;
      }
      while (p.target.length > rf) {
        const i = pickRemoval(m, p, tc);
        const b = p.target[i]!;
        p.target.splice(i, 1);
        m.count[b]--;
        m.bytes[b] -= p.bytes;
        tc[b]--;
      }
    }
    yield;
  }
}

/** Partitions whose replicas share a rack while racks with room exist: one replica moved per fix. */
function* rackRepair(m: Model): Steps<void> {
  if (!m.rackAware) {
    m.warnings.push({ code: 'NO_RACKS', message: 'rack-repair needs brokers with racks (and rackAware not false): nothing to repair.' });
    return;
  }
  const tc = new Int32Array(m.ids.length);
  const availableRacks = new Set(m.eligibleList.map((b) => m.rackKey[b]!));
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti]!;
    topicCounts(list, tc);
    for (const p of list) {
      if (!p.free) continue;
      for (;;) {
        const used = new Map<string, number>();
        for (const b of p.target) used.set(m.rackKey[b]!, (used.get(m.rackKey[b]!) ?? 0) + 1);
        if (![...availableRacks].some((r) => !used.has(r))) break;
        // The replica to move: on a shared rack, not the preferred leader, on a dead broker first, then the most loaded.
        let pick = -1;
        for (let i = 0; i < p.target.length; i++) {
          const b = p.target[i]!;
          if (used.get(m.rackKey[b]!)! < 2) continue;
          if (i === 0 && p.target.slice(1).some((o) => m.rackKey[o] === m.rackKey[b])) continue; // another replica of that rack can go
          if (pick < 0 || removalScore(m, p.target[i]!, tc) > removalScore(m, p.target[pick]!, tc)) pick = i;
        }
        if (pick < 0) break;
        const to = pickDestination(m, p, pick, tc, null, true);
        if (to < 0) break;
        replace(m, p, pick, to, tc);
      }
    }
    yield;
  }
}

/**
 * Count rebalance, topic by topic: each topic's replicas on the brokers end at floor or ceil of
 * n/k per broker. Without a topic filter the broker totals must end even too: the ceil slots are
 * then chosen for all topics at once, spread evenly over the brokers and kept where a broker
 * already holds more than floor as often as possible (ceil-slots.ts; the fewest moves). With a
 * filter each topic alone: ceil slots first to brokers already above floor, then to the lowest
 * running totals. A last pass evens the totals where racks blocked a move.
 */
function* rebalanceCounts(m: Model, evenTotals: boolean): Steps<void> {
  const k = m.eligibleList.length;
  if (k === 0) return;
  const K = m.ids.length;
  // Running totals on the brokers being evened: the projection of the end state.
  const projected = Float64Array.from(m.count);
  const perTopic = new Map<number, { tc: Int32Array; floor: number; ceil: number }>();
  const tc = new Int32Array(K);
  const target = new Int32Array(K);
  const rackBlocked = new Set<string>();

  // Counts per in-scope topic, and (evenTotals) the ceil slots of all topics together.
  const owns = new Map<number, Int32Array>();
  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const own = new Int32Array(K);
    topicCounts(m.byTopic[ti]!, own);
    owns.set(ti, own);
  }
  const ceilSlots = new Map<number, Int32Array>();
  if (evenTotals) {
    const order = [...owns.keys()];
    const input = order.map((ti) => {
      const own = owns.get(ti)!;
      const counts = new Int32Array(k);
      let n = 0;
      m.eligibleList.forEach((b, i) => ((counts[i] = own[b]!), (n += own[b]!)));
      let bytes = 0;
      for (const p of m.byTopic[ti]!) bytes += p.bytes;
      return { counts, floor: Math.floor(n / k), remainder: n % k, weight: bytes / Math.max(1, m.byTopic[ti]!.length) };
    });
    yield;
    const { slots } = yield* assignCeilSlotsSteps(k, input);
    order.forEach((ti, j) => ceilSlots.set(ti, slots[j]!));
  }

  for (let ti = 0; ti < m.byTopic.length; ti++) {
    if (!m.inScope[ti]) continue;
    const list = m.byTopic[ti]!;
    const own = owns.get(ti)!;
    let n = 0;
    for (const b of m.eligibleList) n += own[b]!;
    if (n === 0) continue;
    const floor = Math.floor(n / k);
    const r = n % k;
    target.fill(0);
    const slots = ceilSlots.get(ti);
    if (slots) {
      for (const b of m.eligibleList) target[b] = floor;
      for (const i of slots) target[m.eligibleList[i]!]++;
    } else {
      // Ceil slots: brokers above floor first, then the lowest running totals.
      const order = [...m.eligibleList].sort((a, b) => {
        const above = Number(own[b]! > floor) - Number(own[a]! > floor);
        if (above !== 0) return above;
        // Among brokers above floor any r save the same one move: the lowest totals keep ceil.
        return projected[a]! - projected[b]! || a - b;
      });
      order.forEach((b, i) => (target[b] = floor + (i < r ? 1 : 0)));
    }
    for (const b of m.eligibleList) projected[b] += target[b]! - own[b]!;

    tc.set(own);
    // Sources shed their smallest partitions first (fewest bytes moved).
    const sources = m.eligibleList.filter((b) => own[b]! > target[b]!);
    for (const s of sources) {
      const candidates = list.filter((p) => p.free && p.target.includes(s)).sort((a, b) => a.bytes - b.bytes || a.partition - b.partition);
      for (const p of candidates) {
        if (tc[s]! <= target[s]!) break;
        const i = p.target.indexOf(s);
        const to = pickUnder(m, p, i, tc, target);
        if (to < 0) continue;
        replace(m, p, i, to, tc);
      }
      if (tc[s]! > target[s]!) rackBlocked.add(m.topicNames[ti]!);
    }
    perTopic.set(ti, { tc: Int32Array.from(tc), floor, ceil: floor + (r > 0 ? 1 : 0) });
    yield;
  }
  if (rackBlocked.size > 0) {
    const names = [...rackBlocked].sort(byName);
    m.warnings.push({
      code: 'GOAL_NOT_REACHED',
      message: `${names.length} topic(s) could not be spread evenly${m.rackAware ? ' without putting two replicas of a partition on one rack' : ''}: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}.`,
    });
  }
  if (evenTotals) yield* evenBrokerTotals(m, perTopic);
}

/**
 * Evens the broker totals with moves that keep each topic within floor..ceil: a topic at ceil on
 * an over-full broker and at floor on an under-full one moves one replica across.
 */
function* evenBrokerTotals(m: Model, perTopic: Map<number, { tc: Int32Array; floor: number; ceil: number }>): Steps<void> {
  const k = m.eligibleList.length;
  let n = 0;
  for (const b of m.eligibleList) n += m.count[b]!;
  const floor = Math.floor(n / k);
  const r = n % k;
  // The r brokers holding the most keep ceil (fewest moves).
  const order = [...m.eligibleList].sort((a, b) => m.count[b]! - m.count[a]! || a - b);
  const goal = new Int32Array(m.ids.length);
  order.forEach((b, i) => (goal[b] = floor + (i < r ? 1 : 0)));
  const topics = [...perTopic.keys()].filter((ti) => perTopic.get(ti)!.ceil > perTopic.get(ti)!.floor);
  const tick = counter(256);
  for (const s of order) {
    if (m.count[s]! <= goal[s]!) continue;
    for (const ti of topics) {
      if (m.count[s]! <= goal[s]!) break;
      if (tick()) yield;
      const t = perTopic.get(ti)!;
      if (t.tc[s]! !== t.ceil) continue;
      for (const d of m.eligibleList) {
        if (m.count[d]! >= goal[d]! || t.tc[d]! !== t.floor) continue;
        const p = m.byTopic[ti]!.find((x) => x.free && x.target.includes(s) && !x.target.includes(d) && rackAllows(m, x, x.target.indexOf(s), d));
        if (!p) continue;
        replace(m, p, p.target.indexOf(s), d, t.tc);
        break;
      }
    }
  }
}

/**
 * Bytes rebalance: the heaviest broker hands a replica to the lightest until max - min is at most
 * the largest partition (closer is not possible in general), preferring the largest replica that
 * does not overshoot (fewest moves), then the smallest that still narrows the gap.
 */
function* rebalanceBytes(m: Model): Steps<void> {
  const brokers = m.eligibleList;
  if (brokers.length < 2) return;
  let largest = 0;
  for (const p of m.parts) if (p.free) largest = Math.max(largest, p.bytes);
  const held = new Map<number, Part[]>();
  for (const b of brokers) held.set(b, []);
  for (const p of m.parts) if (p.free) for (const b of p.target) held.get(b)?.push(p);
  for (const list of held.values()) list.sort((a, b) => a.bytes - b.bytes || a.topic - b.topic || a.partition - b.partition);
  const tc = new Int32Array(m.ids.length); // topic counts are not balanced by bytes; kept for replace()
  const limit = m.parts.length * 2 + 10;
  const tick = counter(256);
  for (let step = 0; step < limit; step++) {
    if (tick()) yield;
    let h = brokers[0]!;
    let l = brokers[0]!;
    for (const b of brokers) {
      if (m.bytes[b]! > m.bytes[h]!) h = b;
      if (m.bytes[b]! < m.bytes[l]!) l = b;
    }
    const gap = m.bytes[h]! - m.bytes[l]!;
    if (gap <= largest || gap <= 0) return;
    const list = held.get(h)!;
    // Largest replica not above gap/2 whose partition can take l.
    let chosen = -1;
    let hi = upperIndex(list, gap / 2);
    for (let i = hi; i >= 0; i--) if (movable(m, list[i]!, h, l)) { chosen = i; break; }
    if (chosen < 0) {
      for (let i = hi + 1; i < list.length && list[i]!.bytes < gap; i++) if (movable(m, list[i]!, h, l)) { chosen = i; break; }
    }
    if (chosen < 0) {
      m.warnings.push({ code: 'GOAL_NOT_REACHED', message: `Broker ${m.ids[h]} cannot hand a replica to broker ${m.ids[l]} without breaking a replica or rack constraint.` });
      return;
    }
    const p = list[chosen]!;
    list.splice(chosen, 1);
    replace(m, p, p.target.indexOf(h), l, tc);
    const dest = held.get(l)!;
    dest.splice(upperIndex(dest, p.bytes) + 1, 0, p);
    hi = 0;
  }
}

function movable(m: Model, p: Part, from: number, to: number): boolean {
  return !p.target.includes(to) && rackAllows(m, p, p.target.indexOf(from), to);
}

/** Index of the last element with bytes <= limit (-1 if none); list sorted ascending by bytes. */
function upperIndex(list: Part[], limit: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.bytes <= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * Preferred leaders even per broker, by moving a partition's replica to the front of its list.
 * Greedy in two passes: brokers above ceil give leaderships away, then brokers below floor take
 * some from brokers above floor. Partitions out of scope or moving keep their order.
 */
function* balancePreferredLeaders(m: Model): Steps<void> {
  const K = m.ids.length;
  const leaders = new Int32Array(K);
  let n = 0;
  for (const p of m.parts) {
    const b = p.target[0];
    if (b !== undefined && m.eligible[b]) (leaders[b]++, n++);
  }
  const k = m.eligibleList.length;
  if (k === 0) return;
  const floor = Math.floor(n / k);
  const ceil = floor + (n % k > 0 ? 1 : 0);
  // Pass 1: above ceil -> the replica whose broker leads least (strictly below ceil).
  // Pass 2: below floor <- a leader above floor.
  const tick = counter(4096);
  for (const pass of [1, 2]) {
    for (const p of m.parts) {
      if (tick()) yield;
      if (!p.free || p.target.length < 2) continue;
      const l = p.target[0]!;
      if (!m.eligible[l]) continue;
      let best = -1;
      for (let i = 1; i < p.target.length; i++) {
        const b = p.target[i]!;
        if (!m.eligible[b] || !m.live[b]) continue;
        if (best < 0 || leaders[b]! < leaders[p.target[best]!]!) best = i;
      }
      if (best < 0) continue;
      const b = p.target[best]!;
      const give = pass === 1 ? leaders[l]! > ceil && leaders[b]! < ceil : leaders[b]! < floor && leaders[l]! > floor;
      if (!give) continue;
      p.target.splice(best, 1);
      p.target.unshift(b);
      leaders[l]--;
      leaders[b]++;
    }
  }
}

// ================================================================================== helpers

function topicCounts(list: readonly Part[], tc: Int32Array): void {
  tc.fill(0);
  for (const p of list) for (const b of p.target) tc[b]++;
}

function replace(m: Model, p: Part, i: number, to: number, tc: Int32Array): void {
  const from = p.target[i]!;
  p.target[i] = to;
  m.count[from]--;
  m.bytes[from] -= p.bytes;
  m.count[to]++;
  m.bytes[to] += p.bytes;
  tc[from]--;
  tc[to]++;
}

/** Rack rule for putting `to` at position i (-1 = added): the partition must not end on fewer distinct racks. */
function rackAllows(m: Model, p: Part, i: number, to: number): boolean {
  if (!m.rackAware) return true;
  const before = new Set<string>();
  const after = new Set<string>([m.rackKey[to]!]);
  for (let j = 0; j < p.target.length; j++) {
    const r = m.rackKey[p.target[j]!]!;
    before.add(r);
    if (j !== i) after.add(r);
  }
  return after.size >= before.size;
}

/**
 * Best destination for position i of p (-1 = a new replica): eligible, not in p, not removed;
 * new rack first (rackAware; `requireNewRack` makes it mandatory), then fewest replicas of the
 * topic, then least load, then lowest id.
 */
function pickDestination(m: Model, p: Part, i: number, tc: Int32Array, removed: ReadonlySet<number> | null, requireNewRack = false): number {
  let usedRacks: Set<string> | null = null;
  if (m.rackAware) {
    usedRacks = new Set();
    for (let j = 0; j < p.target.length; j++) if (j !== i) usedRacks.add(m.rackKey[p.target[j]!]!);
  }
  let best = -1;
  let bestNew = false;
  for (const b of m.eligibleList) {
    if (p.target.includes(b) || removed?.has(b)) continue;
    const isNew = usedRacks ? !usedRacks.has(m.rackKey[b]!) : true;
    if (requireNewRack && !isNew) continue;
    if (best >= 0 && bestNew && !isNew) continue;
    if (best < 0 || (isNew && !bestNew) || better(m, b, best, tc)) {
      best = b;
      bestNew = isNew;
    }
  }
  return best;
}

/** Like pickDestination, among brokers below their per-topic target, keeping the rack count. */
function pickUnder(m: Model, p: Part, i: number, tc: Int32Array, target: Int32Array): number {
  let best = -1;
  for (const b of m.eligibleList) {
    if (tc[b]! >= target[b]! || p.target.includes(b) || !rackAllows(m, p, i, b)) continue;
    if (best < 0 || better(m, b, best, tc)) best = b;
  }
  return best;
}

function better(m: Model, a: number, b: number, tc: Int32Array): boolean {
  if (m.weight === 'bytes') {
    if (m.bytes[a] !== m.bytes[b]) return m.bytes[a]! < m.bytes[b]!;
    if (tc[a] !== tc[b]) return tc[a]! < tc[b]!;
  } else {
    if (tc[a] !== tc[b]) return tc[a]! < tc[b]!;
    if (m.count[a] !== m.count[b]) return m.count[a]! < m.count[b]!;
  }
  return a < b;
}

/** Higher = better to drop: dead broker, not eligible, shares a rack, most replicas of the topic, most load. */
function removalScore(m: Model, b: number, tc: Int32Array): number {
  return (m.live[b] ? 0 : 4e12) + (m.eligible[b] ? 0 : 2e12) + tc[b]! * 1e6 + (m.weight === 'bytes' ? m.bytes[b]! / 1e9 : m.count[b]!) + b / 1e9;
}

/** Replica to drop when lowering the factor: never the preferred leader while another can go. */
function pickRemoval(m: Model, p: Part, tc: Int32Array): number {
  const racks = new Map<string, number>();
  for (const b of p.target) racks.set(m.rackKey[b]!, (racks.get(m.rackKey[b]!) ?? 0) + 1);
  let pick = -1;
  let pickScore = -Infinity;
  for (let i = 1; i < p.target.length; i++) {
    const b = p.target[i]!;
    const score = removalScore(m, b, tc) + (m.rackAware && racks.get(m.rackKey[b]!)! > 1 ? 1e12 : 0);
    if (score > pickScore) (pick = i), (pickScore = score);
  }
  return pick < 0 ? p.target.length - 1 : pick;
}

function* loads(m: Model, replicas: (p: Part) => readonly number[]): Steps<BrokerLoad[]> {
  const K = m.ids.length;
  const count = new Int32Array(K);
  const leaders = new Int32Array(K);
  const bytes = new Float64Array(K);
  const tick = counter(8192);
  for (const p of m.parts) {
    const r = replicas(p);
    if (r.length > 0) leaders[r[0]!]++;
    for (const b of r) (count[b]++, (bytes[b] += p.bytes));
    if (tick()) yield;
  }
  return m.ids.map((id, b) => ({ broker: id, rack: m.racks[b]!, live: m.live[b]!, replicas: count[b]!, leaders: leaders[b]!, bytes: bytes[b]! }));
}

function isSortedByPartition(list: readonly { partition: number }[]): boolean {
  for (let i = 1; i < list.length; i++) if (list[i - 1]!.partition > list[i]!.partition) return false;
  return true;
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

// ================================================================================== goal check

/** Says, as warnings, where the plan falls short of the goal (checked on the result, not on how it was made). */
function* checkGoal(m: Model, request: PlanRequest, removed: ReadonlySet<number>, destinations: readonly number[], evenTotals: boolean, after: BrokerLoad[], warnings: PlanWarning[]): Steps<void> {
  const ids = m.ids;
  if (request.goal === 'decommission') {
    for (const l of after) {
      if (removed.has(l.broker) && l.replicas > 0) {
        warnings.push({ code: 'GOAL_NOT_REACHED', broker: l.broker, message: `Broker ${l.broker} still holds ${l.replicas} replica(s) after the plan (topics out of scope, or partitions being moved now).` });
      }
    }
  }
  if (request.goal === 'rebalance' && (request.weight ?? 'replicas') === 'replicas') {
    const set = new Set(destinations);
    const inSet = after.filter((l) => set.has(l.broker));
    if (evenTotals && inSet.length > 0) {
      const max = Math.max(...inSet.map((l) => l.replicas));
      const min = Math.min(...inSet.map((l) => l.replicas));
      if (max - min > 1) {
        warnings.push({ code: 'GOAL_NOT_REACHED', message: `Replica counts per broker still differ by ${max - min} (max ${max}, min ${min}): constraints (racks, one replica per broker, partitions being moved) do not allow closer.` });
      }
    }
  }
  if (request.goal === 'rebalance' && request.weight === 'bytes') {
    const set = new Set(destinations);
    const inSet = after.filter((l) => set.has(l.broker));
    let largest = 0;
    for (const p of m.parts) if (p.free) largest = Math.max(largest, p.bytes);
    if (inSet.length > 1) {
      const max = Math.max(...inSet.map((l) => l.bytes));
      const min = Math.min(...inSet.map((l) => l.bytes));
      if (max - min > largest && !warnings.some((w) => w.code === 'GOAL_NOT_REACHED')) {
        warnings.push({ code: 'GOAL_NOT_REACHED', message: `Bytes per broker still differ by ${max - min}, more than the largest partition (${largest}).` });
      }
    }
  }
  if (request.goal === 'replication-factor') {
    const short = m.parts.filter((p) => m.inScope[p.topic] && p.free && p.target.length !== request.replicationFactor);
    if (short.length > 0) warnings.push({ code: 'GOAL_NOT_REACHED', message: `${short.length} partition(s) could not reach replication factor ${request.replicationFactor}.` });
  }
  if (m.rackAware) {
    // Changed partitions that share a rack although the destinations have a rack to spare.
    const available = new Set(m.eligibleList.map((b) => m.rackKey[b]!));
    let shared = 0;
    const tick = counter(4096);
    for (const p of m.parts) {
      if (tick()) yield;
      if (!p.free || sameList(p.original, p.target)) continue;
      const used = new Set(p.target.map((b) => m.rackKey[b]!));
      if (used.size < p.target.length && [...available].some((r) => !used.has(r))) shared++;
    }
    if (shared > 0) {
      warnings.push({
        code: 'RACK_CONSTRAINT',
        message: `${shared} changed partition(s) keep two replicas on one rack although another rack has room${request.goal === 'rack-repair' ? '' : ' (goal rack-repair spreads them)'}.`,
      });
    }
  }
  const deadHolders = after.filter((l) => !l.live && l.replicas > 0 && !removed.has(l.broker));
  for (const l of deadHolders) {
    warnings.push({ code: 'BROKER_NOT_LIVE', broker: l.broker, message: `Broker ${l.broker} is not alive and holds ${l.replicas} replica(s); plan its decommission to move them.` });
  }
  void ids;
}

function checkLeaders(m: Model, after: BrokerLoad[], warnings: PlanWarning[]): void {
  const inSet = after.filter((l) => m.eligible[m.ids.indexOf(l.broker)]);
  if (inSet.length === 0) return;
  const max = Math.max(...inSet.map((l) => l.leaders));
  const min = Math.min(...inSet.map((l) => l.leaders));
  if (max - min > 1) {
    warnings.push({ code: 'LEADERS_NOT_BALANCED', message: `Preferred leaders per broker still differ by ${max - min} (max ${max}, min ${min}): partitions out of scope or whose replicas are all on busy leaders keep theirs.` });
  }
}
