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
//
// This file checks the request and builds the model (model.ts); the goals (goals.ts) choose the
// moves with the destination search of moves.ts; goal-check.ts says where the result falls short.
import { KAFKA_ERRORS } from '../reassignment/types.js';
import { lowerBoundSteps, type BoundPartition } from './lower-bound.js';
import { resolveTopicScope } from './scope.js';
import { planLeadersSteps } from './leaders-goal.js';
import { counter, drain, type Steps } from '../steps.js';
import { checkGoal, checkLeaders } from './goal-check.js';
import { balancePreferredLeaders, decommission, rackRepair, rebalanceBytes, rebalanceCounts, replicationFactor } from './goals.js';
import { byName, isSortedByPartition, loads, sameList, type Model, type Part } from './model.js';
import type { Plan, PlanCluster, PlanError, PlannedPartition, PlanRequest, PlanResult, PlanWarning } from './types.js';

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
  const dense = ids.length > 0 && ids[ids.length - 1] < 1 << 20 ? new Int32Array(ids[ids.length - 1] + 1) : null;
  if (dense) ids.forEach((id, i) => (dense[id] = i));
  const indexOf = dense ? (b: number) => dense[b] : (b: number) => index.get(b)!;
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
    if (rf === undefined)
      errors.push({
        path: '/replicationFactor',
        code: 'MISSING_FIELD',
        message: 'replicationFactor is required for goal replication-factor.',
        kafkaError: null,
      });
    if (!request.topics || request.topics.length === 0) {
      errors.push({
        path: '/topics',
        code: 'MISSING_FIELD',
        message: 'topics is required for goal replication-factor: name the topics (or /patterns/) whose factor changes.',
        kafkaError: null,
      });
    }
  }
  if (request.goal === 'decommission' && requested.length === 0) {
    errors.push({
      path: '/brokers',
      code: 'MISSING_FIELD',
      message: 'brokers is required for goal decommission: the brokers to empty.',
      kafkaError: null,
    });
  }

  // Destinations: decommission = live brokers not removed; otherwise the requested set or every live broker.
  const removed = new Set(request.goal === 'decommission' ? requested.filter((b) => known.has(b)) : []);
  const destinationIds =
    request.goal === 'decommission'
      ? [...liveIds].filter((b) => !removed.has(b))
      : requested.length > 0
        ? [...seen].filter((b) => liveIds.has(b))
        : [...liveIds];
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
    warnings.push({
      code: 'NO_RACKS',
      message: 'rackAware was requested but no destination broker has a rack (broker.rack): replicas are placed without rack constraints.',
    });
  } else if (rackAware && destinationIds.some((b) => rackById.get(b) == null)) {
    warnings.push({
      code: 'MISSING_RACKS',
      message: `Broker(s) ${destinationIds.filter((b) => rackById.get(b) == null).join(', ')} have no rack: each counts as a rack of its own.`,
    });
  }
  const weight = request.weight ?? 'replicas';
  const eligible = ids.map((id) => destinationIds.includes(id));
  const topicOrder = cluster.topics.map((t, i) => i).sort((a, b) => byName(topicNames[a], topicNames[b]));
  const byTopic: Part[][] = cluster.topics.map(() => []);
  const inScope = topicNames.map((n) => scoped.has(n));
  const parts: Part[] = [];
  let moving = 0;
  let unsized = 0;
  for (const ti of topicOrder) {
    const t = cluster.topics[ti];
    const list = isSortedByPartition(t.partitions) ? t.partitions : [...t.partitions].sort((a, b) => a.partition - b.partition);
    for (const p of list) {
      const replicas = new Array<number>(p.replicas.length);
      for (let j = 0; j < replicas.length; j++) replicas[j] = indexOf(p.replicas[j]);
      const free = inScope[ti] && !p.moving;
      if (inScope[ti] && p.moving) moving++;
      if (free && p.bytes === null) unsized++;
      const part: Part = {
        topic: ti,
        partition: p.partition,
        original: replicas,
        target: [...replicas],
        bytes: p.bytes ?? 0,
        sized: p.bytes !== null,
        free,
      };
      byTopic[ti].push(part);
      parts.push(part);
      if (tick()) yield;
    }
  }
  if (moving > 0)
    warnings.push({
      code: 'PARTITIONS_MOVING',
      message: `${moving} partition(s) in scope are being reassigned now and were left as they are.`,
    });
  if (unsized > 0 && (weight === 'bytes' || request.goal !== 'rebalance')) {
    warnings.push({
      code: 'SIZES_UNKNOWN',
      message: `The size of ${unsized} partition(s) is unknown (no log dir answered): they count as 0 bytes.`,
    });
  }

  const count = new Int32Array(ids.length);
  const bytes = new Float64Array(ids.length);
  for (const p of parts) {
    for (const b of p.target) {
      count[b]++;
      bytes[b] += p.bytes;
    }
  }
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
      topic: topicNames[p.topic],
      partition: p.partition,
      currentReplicas: p.original.map((b) => ids[b]),
      targetReplicas: p.target.map((b) => ids[b]),
      adding: adding.map((b) => ids[b]),
      removing: p.original.filter((b) => !p.target.includes(b)).map((b) => ids[b]),
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
