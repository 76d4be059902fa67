// Health interlocks (issue 30, part 1), pure: from one Metadata read of the cluster (leader,
// replicas and ISR of every partition, the live brokers) decide whether the cluster is in trouble
// that the move did not cause, and whether a paced reassignment holds (starts no new move) or
// resumes. No I/O, no clock: the reconciler (src/reconcile/health.ts) reads Kafka and writes the
// decision into the reassignment's record.
//
// What counts as trouble (docs/health-interlocks.md has the why):
//   offline          a partition without a leader (Metadata leader -1);
//   underReplicated  a partition whose ISR is shorter than its replica list and that no move
//                    (this gateway's or anyone's, as Kafka lists them) is touching: a move's new
//                    replica is out of the ISR until it caught up, that is the move itself;
//   underMinIsr      a partition with a leader whose ISR is below its topic's min.insync.replicas
//                    (where known): producers with acks=all fail on it now, moving or not;
//   brokerGone       a broker named in some replica list (or expected by the caller) that
//                    Metadata does not list as live.
// Each is counted, with at most MAX_EXAMPLES examples: bounded whatever the cluster's size.

/** Where parse errors go: request.ts's FieldError[] (not imported: request.ts imports this module). */
export interface SafetyErrorSink {
  push(e: { path: string; code: 'INVALID_TYPE' | 'OUT_OF_RANGE'; message: string }): unknown;
  readonly length: number;
}

export const TROUBLE_KINDS = ['offline', 'underReplicated', 'underMinIsr', 'brokerGone'] as const;
export type TroubleKind = (typeof TROUBLE_KINDS)[number];

/** A reassignment's policy: which kinds of trouble hold it, and how many healthy passes resume it. */
export interface SafetyPolicy {
  readonly holdOn: readonly TroubleKind[];
  readonly resumeAfterPasses: number;
}
/** `off`: the reassignment never holds (no health read on its behalf). */
export type Safety = SafetyPolicy | 'off';

/** Every kind holds; three healthy reconcile passes in a row resume (hysteresis against flapping ISRs). */
export const DEFAULT_SAFETY: SafetyPolicy = Object.freeze({ holdOn: Object.freeze([...TROUBLE_KINDS]), resumeAfterPasses: 3 });
export const MAX_RESUME_AFTER_PASSES = 1000;
/** Examples kept per kind of trouble (and per gone target broker). */
export const MAX_EXAMPLES = 5;

export interface HealthPartition {
  readonly partition: number;
  /** -1: no leader. */
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
}
export interface HealthTopic {
  readonly name: string;
  readonly partitions: readonly HealthPartition[];
}

export interface HealthInput {
  readonly topics: readonly HealthTopic[];
  /** The brokers Metadata lists (live). */
  readonly liveBrokers: ReadonlySet<number>;
  /** Brokers expected besides those named in replica lists (e.g. the targets of live reassignments). */
  readonly expectedBrokers?: Iterable<number>;
  /** min.insync.replicas per topic, where known (a topic missing here is never under min ISR). */
  readonly minIsr: ReadonlyMap<string, number>;
  /** Whether a move touches the partition (asked only about under-replicated partitions). */
  readonly moving: (topic: string, partition: number) => boolean;
  /**
   * Partitions of the cluster when `topics` lists only some of them (a compact read leaves out
   * healthy ones; their replicas' gone brokers come as expectedBrokers). Default: those listed.
   */
  readonly partitions?: number;
}

export interface TroubleReason {
  readonly kind: TroubleKind;
  readonly count: number;
  /** `topic-partition` (or broker ids as strings for brokerGone), at most MAX_EXAMPLES. */
  readonly examples: readonly string[];
}

export interface ClusterHealth {
  /** Kinds with a count above 0, in TROUBLE_KINDS order. */
  readonly troubles: readonly TroubleReason[];
  /** Brokers gone from Metadata, ascending. */
  readonly goneBrokers: readonly number[];
  readonly partitions: number;
}

class Counter {
  count = 0;
  readonly examples: string[] = [];
  add(example: () => string): void {
    if (this.count++ < MAX_EXAMPLES) this.examples.push(example());
  }
}

/** Partitions walked between two yields of assessHealthSteps (~1 ms at most). */
export const HEALTH_STEP_PARTITIONS = 4096;

/**
 * One walk over every partition (O(partitions x replication factor), no allocation per healthy
 * partition: examples are made only for the first few troubled ones).
 */
export function assessHealth(input: HealthInput): ClusterHealth {
  const steps = assessHealthSteps(input);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * assessHealth in steps: the same result, yielding every HEALTH_STEP_PARTITIONS partitions, so
 * that a caller on the event loop lets other work run (100,000 partitions walk in ~5-15 ms).
 */
export function* assessHealthSteps(input: HealthInput): Generator<void, ClusterHealth, void> {
  const offline = new Counter();
  const under = new Counter();
  const underMin = new Counter();
  const live = input.liveBrokers;
  const gone = new Set<number>();
  for (const b of input.expectedBrokers ?? []) if (!live.has(b)) gone.add(b);
  let partitions = 0;
  for (const t of input.topics) {
    const minIsr = input.minIsr.get(t.name);
    const ps = t.partitions;
    for (let i = 0; i < ps.length; i++) {
      const p = ps[i];
      if (++partitions % HEALTH_STEP_PARTITIONS === 0) yield;
      const replicas = p.replicas;
      for (let r = 0; r < replicas.length; r++) if (!live.has(replicas[r])) gone.add(replicas[r]);
      if (p.leader < 0) {
        offline.add(() => `${t.name}-${p.partition}`);
        continue;
      }
      const isr = p.isr.length;
      if (isr < replicas.length && !input.moving(t.name, p.partition)) under.add(() => `${t.name}-${p.partition}`);
      if (minIsr !== undefined && isr < minIsr) underMin.add(() => `${t.name}-${p.partition}`);
    }
  }
  const goneBrokers = [...gone].sort((a, b) => a - b);
  const troubles: TroubleReason[] = [];
  const push = (kind: TroubleKind, c: { count: number; examples: readonly string[] }) => {
    if (c.count > 0) troubles.push({ kind, count: c.count, examples: c.examples });
  };
  push('offline', offline);
  push('underReplicated', under);
  push('underMinIsr', underMin);
  push('brokerGone', { count: goneBrokers.length, examples: goneBrokers.slice(0, MAX_EXAMPLES).map(String) });
  return { troubles, goneBrokers, partitions: input.partitions ?? partitions };
}

/**
 * The health one reassignment is judged by: a gone broker that its own open moves drain
 * (replicas they move away, to no open move's target) is what the move is for — decommissioning
 * a dead broker — not trouble. Every other kind is the cluster's.
 */
export function healthFor(health: ClusterHealth, drained: ReadonlySet<number>): ClusterHealth {
  if (drained.size === 0 || !health.goneBrokers.some((b) => drained.has(b))) return health;
  const gone = health.goneBrokers.filter((b) => !drained.has(b));
  const troubles = health.troubles.filter((t) => t.kind !== 'brokerGone');
  if (gone.length > 0) troubles.push({ kind: 'brokerGone', count: gone.length, examples: gone.slice(0, MAX_EXAMPLES).map(String) });
  return { ...health, troubles, goneBrokers: gone };
}

/** Brokers the open (queued or moving) moves of a reassignment take replicas away from and give none to. O(partitions). */
export function drainedBrokers(
  partitions: readonly {
    readonly original: readonly number[];
    readonly target: readonly number[];
    readonly state: string;
    readonly supersededBy?: string;
  }[],
): Set<number> {
  const from = new Set<number>();
  const to = new Set<number>();
  for (const p of partitions) {
    if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) continue;
    for (const b of p.target) to.add(b);
    for (const b of p.original) if (!p.target.includes(b)) from.add(b);
  }
  for (const b of to) from.delete(b);
  return from;
}

/**
 * Topics whose min.insync.replicas can matter: some partition with a leader has an ISR shorter
 * than its replica list (an ISR as long as the replicas is below min ISR only when the topic's
 * min.insync.replicas exceeds its replication factor, a misconfiguration left out). Only these
 * need their config read: none on a healthy cluster.
 */
export function minIsrCandidates(topics: readonly HealthTopic[]): string[] {
  const out: string[] = [];
  for (const t of topics) {
    for (const p of t.partitions) {
      if (p.leader >= 0 && p.isr.length < p.replicas.length) {
        out.push(t.name);
        break;
      }
    }
  }
  return out;
}

/** A reassignment's hold as its record keeps it (every instance and a restart see it). */
export interface HoldState {
  /** When the hold began (ms since the epoch). */
  readonly since: number;
  /** The trouble that holds it, as last seen (kinds its policy holds on). */
  readonly reasons: readonly TroubleReason[];
  /** Healthy passes in a row since the trouble was last seen (resumes at the policy's resumeAfterPasses). */
  readonly healthyPasses: number;
  /** Targets of its open moves on brokers gone from Metadata: such a move cannot finish (re-plan). */
  readonly targetsGone?: readonly GoneTarget[];
}

export interface GoneTarget {
  readonly broker: number;
  /** Queued or moving partitions of the reassignment with this broker in their target. */
  readonly partitions: number;
  readonly examples: readonly string[];
}

export type HoldDecision =
  | { readonly kind: 'none' }
  | { readonly kind: 'held'; readonly hold: HoldState }
  | { readonly kind: 'updated'; readonly hold: HoldState }
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'resumed'; readonly heldForMs: number };

/** What identifies a hold's trouble for writing: the kinds and the gone brokers (counts change every pass; not worth a write). */
function signature(reasons: readonly TroubleReason[], targets: readonly GoneTarget[] | undefined): string {
  return (
    reasons.map((r) => (r.kind === 'brokerGone' ? `${r.kind}:${r.examples.join(',')}` : r.kind)).join('|') +
    '/' +
    (targets ?? []).map((t) => t.broker).join(',')
  );
}

/**
 * The next hold of a reassignment from this pass's health: trouble its policy holds on -> held
 * (from now, or still); none while held -> one more healthy pass, resumed at resumeAfterPasses.
 * `updated` when the record must be rewritten (the kinds of trouble changed, the healthy count
 * moved), `unchanged` when the record already says it.
 */
export function decideHold(
  policy: Safety,
  health: ClusterHealth,
  prev: HoldState | undefined,
  now: number,
  targetsGone?: readonly GoneTarget[],
): HoldDecision {
  if (policy === 'off') return prev ? { kind: 'resumed', heldForMs: Math.max(0, now - prev.since) } : { kind: 'none' };
  const holdOn = new Set(policy.holdOn);
  const reasons = health.troubles.filter((t) => holdOn.has(t.kind));
  const targets = targetsGone && targetsGone.length > 0 ? targetsGone : undefined;
  if (reasons.length > 0) {
    const hold: HoldState = { since: prev?.since ?? now, reasons, healthyPasses: 0, ...(targets && { targetsGone: targets }) };
    if (!prev) return { kind: 'held', hold };
    if (prev.healthyPasses !== 0 || signature(prev.reasons, prev.targetsGone) !== signature(reasons, targets))
      return { kind: 'updated', hold };
    return { kind: 'unchanged' };
  }
  if (!prev) return { kind: 'none' };
  const healthyPasses = prev.healthyPasses + 1;
  if (healthyPasses >= policy.resumeAfterPasses) return { kind: 'resumed', heldForMs: Math.max(0, now - prev.since) };
  return { kind: 'updated', hold: { ...prev, healthyPasses } };
}

/**
 * Open moves (queued or moving) of a reassignment whose target names a gone broker, per broker
 * (ascending), counted with a few examples. O(partitions); nothing when no broker is gone.
 */
export function targetsOnGoneBrokers(
  partitions: readonly {
    readonly topic: string;
    readonly partition: number;
    readonly target: readonly number[];
    readonly state: string;
    readonly supersededBy?: string;
  }[],
  gone: readonly number[],
): GoneTarget[] {
  if (gone.length === 0) return [];
  const goneSet = new Set(gone);
  const per = new Map<number, Counter>();
  for (const p of partitions) {
    if (p.supersededBy || (p.state !== 'queued' && p.state !== 'moving')) continue;
    for (const b of p.target) {
      if (!goneSet.has(b)) continue;
      let c = per.get(b);
      if (!c) per.set(b, (c = new Counter()));
      c.add(() => `${p.topic}-${p.partition}`);
    }
  }
  return [...per].sort((a, b) => a[0] - b[0]).map(([broker, c]) => ({ broker, partitions: c.count, examples: c.examples }));
}

/**
 * How to re-plan around gone target brokers, for the API's answer. The plan API has no
 * `excludeBrokers`; its `brokers` option says where replicas may go (rebalance: the brokers to
 * even out), and `decommission` moves every replica off the brokers named.
 */
export function replanHint(id: string, gone: readonly number[]): string {
  const list = gone.join(', ');
  return (
    `Moves of this reassignment target broker(s) ${list}, gone from the cluster: they cannot finish. ` +
    `Cancel it (DELETE /reassignments/${id}: moves in flight are reverted), then POST /plans with your goal and ` +
    `"brokers" set to the live brokers (GET /brokers, live: true) so that no replica goes to ${list}, ` +
    `or {"goal":"decommission","brokers":[${list}]} to move every replica off ${gone.length === 1 ? 'it' : 'them'}; POST the plan to /reassignments.`
  );
}

/**
 * `safety` of a POST /reassignments body: absent or null = the default policy (null returned),
 * `"off"`, or `{holdOn?, resumeAfterPasses?}` (a missing field takes its default). Errors are
 * appended with JSON Pointers under `path`.
 */
export function parseSafety(value: unknown, path: string, errors: SafetyErrorSink): Safety | null {
  if (value === undefined || value === null) return null;
  if (value === 'off') return 'off';
  if (typeof value !== 'object' || Array.isArray(value)) {
    errors.push({ path, code: 'INVALID_TYPE', message: 'safety must be "off" or an object {holdOn, resumeAfterPasses}.' });
    return null;
  }
  const v = value as Record<string, unknown>;
  let holdOn: readonly TroubleKind[] = DEFAULT_SAFETY.holdOn;
  let resumeAfterPasses = DEFAULT_SAFETY.resumeAfterPasses;
  const before = errors.length;
  for (const key of Object.keys(v)) {
    if (key !== 'holdOn' && key !== 'resumeAfterPasses')
      errors.push({ path: `${path}/${key}`, code: 'INVALID_TYPE', message: `safety has only holdOn and resumeAfterPasses, not ${key}.` });
  }
  if (v.holdOn !== undefined) {
    if (!Array.isArray(v.holdOn))
      errors.push({
        path: `${path}/holdOn`,
        code: 'INVALID_TYPE',
        message: `safety.holdOn must be an array of ${TROUBLE_KINDS.join(', ')}.`,
      });
    else {
      const kinds: TroubleKind[] = [];
      v.holdOn.forEach((k, i) => {
        if (typeof k !== 'string' || !(TROUBLE_KINDS as readonly string[]).includes(k))
          errors.push({
            path: `${path}/holdOn/${i}`,
            code: 'INVALID_TYPE',
            message: `safety.holdOn entries are ${TROUBLE_KINDS.join(', ')}.`,
          });
        else if (!kinds.includes(k as TroubleKind)) kinds.push(k as TroubleKind);
      });
      // In TROUBLE_KINDS order: the same policy always reads the same.
      holdOn = TROUBLE_KINDS.filter((k) => kinds.includes(k));
    }
  }
  if (v.resumeAfterPasses !== undefined) {
    const n = v.resumeAfterPasses;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1 || n > MAX_RESUME_AFTER_PASSES)
      errors.push({
        path: `${path}/resumeAfterPasses`,
        code: 'OUT_OF_RANGE',
        message: `safety.resumeAfterPasses must be an integer from 1 to ${MAX_RESUME_AFTER_PASSES} (healthy reconcile passes in a row).`,
      });
    else resumeAfterPasses = n;
  }
  if (errors.length > before) return null;
  return { holdOn, resumeAfterPasses };
}

/** The policy a record runs under: its own, else the default. */
export function safetyOf(r: { readonly safety?: Safety }): Safety {
  return r.safety ?? DEFAULT_SAFETY;
}
