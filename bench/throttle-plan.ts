// The throttle sync's CPU per pass at SIZE moving partitions (default 100,000: 100 topics of
// 1,000, RF 3 -> 3 others, 12 brokers), converged (configs and ledger already in place, the
// steady state while a move runs): merge the live demands, reconcile them against the configs
// read and the ledger, diff the ledger. Baseline in the same run = the same work with every
// memo cold (parse cache cleared, fresh demand/ledger/config objects: what each pass did
// before the caches); then the warm pass (what a pass does now while nothing changed), and a
// pass after one topic's config changed (only that topic's lists are parsed again), and a pass
// with the demands re-read (new objects, same content).
// Prints min/median/max over REPS and the ratio warm / cold.
//
//   npx tsx bench/throttle-plan.ts            (SIZE=100000 REPS=7)
import { performance } from 'node:perf_hooks';
import {
  clearParseCache,
  computeReassignmentThrottles,
  mergeThrottleDemands,
  reconcileThrottles,
  throttleDemandFor,
  type ThrottleConfigValues,
  type ThrottleLedger,
} from '../src/domain/reassignment/index.js';
import { PlanCache, sameJson } from '../src/reconcile/throttle-sync.js';

const SIZE = Number(process.env.SIZE ?? 100_000);
const REPS = Number(process.env.REPS ?? 7);
const PER_TOPIC = 1000;
const BROKERS = 12;

const topics = Math.ceil(SIZE / PER_TOPIC);
// Ten reassignments of ten topics each.
const demands = Array.from({ length: 10 }, (_, r) => {
  const proposed = [];
  for (let t = r * (topics / 10); t < (r + 1) * (topics / 10); t++) {
    for (let p = 0; p < PER_TOPIC; p++) {
      proposed.push({
        topic: `t${t}`,
        partition: p,
        currentReplicas: [p % BROKERS, (p + 1) % BROKERS, (p + 2) % BROKERS],
        targetReplicas: [(p + 3) % BROKERS, (p + 4) % BROKERS, (p + 5) % BROKERS],
      });
    }
  }
  return throttleDemandFor(computeReassignmentThrottles([], proposed), 10_000_000);
});

// Converged: apply one plan from nothing, take its configs and "after" ledger.
const empty: ThrottleConfigValues = {
  topics: Object.fromEntries(Array.from({ length: topics }, (_, t) => [`t${t}`, { leader: null, follower: null }])),
  brokers: Object.fromEntries(Array.from({ length: BROKERS }, (_, b) => [String(b), { leaderRate: null, followerRate: null }])),
};
const first = reconcileThrottles(empty, mergeThrottleDemands(demands), { topics: {}, brokers: {} });
const configs = structuredClone(empty);
for (const a of first.alterations) {
  const target = (a.resourceType === 'topic' ? configs.topics : configs.brokers) as Record<string, Record<string, string | null>>;
  for (const c of a.configs) {
    const fields: Record<string, string> = {
      'leader.replication.throttled.replicas': 'leader',
      'follower.replication.throttled.replicas': 'follower',
      'leader.replication.throttled.rate': 'leaderRate',
      'follower.replication.throttled.rate': 'followerRate',
      'replica.alter.log.dirs.io.max.bytes.per.second': 'logDirRate',
    };
    const field = fields[c.name];
    target[a.resourceName][field] = c.value;
  }
}
const ledger: ThrottleLedger = first.ledgerAfterOps;
const fresh = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T; // new objects and new strings, like a new read

function pass(cache: PlanCache, d: typeof demands, values: ThrottleConfigValues, l: ThrottleLedger): number {
  const t0 = performance.now();
  const plan = cache.plan(values, mergeThrottleDemands(d), l);
  let changed = 0;
  for (const [t, want] of Object.entries(plan.ledgerAfterOps.topics)) if (!sameJson(l.topics[t], want)) changed++;
  if (plan.alterations.length !== 0 || changed !== 0) throw new Error('not converged');
  return performance.now() - t0;
}

const stat = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor((s.length - 1) / 2)], max: s.at(-1)! };
};
const fmt = (s: { min: number; median: number; max: number }) => `${s.min.toFixed(1)} / ${s.median.toFixed(1)} / ${s.max.toFixed(1)} ms`;

const cold: number[] = [];
const warm: number[] = [];
const oneChanged: number[] = [];
const reRead: number[] = [];
const cache = new PlanCache();
const warmDemands = fresh(demands);
const warmLedger = fresh(ledger);
// Cold first, then warm (the memos hold one entry: interleaving would empty them).
for (let i = 0; i < REPS; i++) {
  const [d, v, l] = [fresh(demands), fresh(configs), fresh(ledger)];
  clearParseCache();
  cold.push(pass(new PlanCache(), d, v, l));
}
pass(cache, warmDemands, fresh(configs), warmLedger); // fill
for (let i = 0; i < REPS; i++) warm.push(pass(cache, warmDemands, fresh(configs), warmLedger));
for (let i = 0; i < REPS; i++) {
  // One topic's leader list re-read with its entries in another order (same set): a new value.
  const v2 = fresh(configs);
  const t0 = v2.topics.t0 as { leader: string };
  t0.leader = t0.leader.split(',').reverse().join(',') + (i % 2 ? ',' : '');
  oneChanged.push(pass(cache, warmDemands, v2, warmLedger));
}
// Demands and ledger re-read from the state topic (new objects, same content), configs unchanged.
for (let i = 0; i < REPS; i++) reRead.push(pass(cache, fresh(demands), fresh(configs), warmLedger));
const c = stat(cold);
const w = stat(warm);
const o = stat(oneChanged);
console.log(`throttle plan per pass, ${SIZE} moving partitions (${topics} topics), converged; min / median / max over ${REPS}`);
console.log(`cold (every memo empty: before)  ${fmt(c)}`);
console.log(`warm (nothing changed)           ${fmt(w)}   ratio ${(w.median / c.median).toFixed(3)}`);
console.log(`one topic's value changed        ${fmt(o)}   ratio ${(o.median / c.median).toFixed(3)}`);
const r = stat(reRead);
console.log(`demands re-read (same content)   ${fmt(r)}   ratio ${(r.median / c.median).toFixed(3)}`);
