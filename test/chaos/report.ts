// Which seeds a chaos run covers (fixed by default, so CI is repeatable; CHAOS_SEED / CHAOS_SEEDS
// to choose others), one run's trace, and the report of a batch: totals, what the runs
// exercised, and every failing seed with its trace and the command that replays it.
import { formatOutcome, type History } from './actions.js';
import type { ChaosCluster } from './cluster.js';
import type { Violation } from './invariants.js';
import { formatEntry } from './journal.js';
import type { RunResult } from './runner.js';
import { formatSchedule } from './schedule.js';

/** Lines of a trace's timeline at most (a run is usually well under a hundred). */
const TIMELINE_MAX = 200;

/**
 * CHAOS_SEED=<n>: that one seed. CHAOS_SEEDS=<from>-<to> (both included) or a comma list of seeds
 * and ranges ("7,19,100-120"). Otherwise `fallback`.
 */
export function seedsFromEnv(env: NodeJS.ProcessEnv, fallback: readonly number[]): number[] {
  const one = env.CHAOS_SEED?.trim();
  if (one) return [parseSeed(one)];
  const many = env.CHAOS_SEEDS?.trim();
  if (!many) return [...fallback];
  const out: number[] = [];
  for (const part of many
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const range = /^(-?\d+)\s*-\s*(-?\d+)$/.exec(part);
    if (range) {
      const [from, to] = [Number(range[1]), Number(range[2])];
      if (to < from) throw new Error(`CHAOS_SEEDS: empty range ${part}`);
      for (let s = from; s <= to; s++) out.push(s);
    } else out.push(parseSeed(part));
  }
  return out;
}

function parseSeed(s: string): number {
  const n = Number(s);
  if (!Number.isSafeInteger(n)) throw new Error(`not a seed: ${JSON.stringify(s)} (an integer)`);
  return n;
}

export const range = (from: number, count: number): number[] => Array.from({ length: count }, (_, i) => from + i);

/** The batch in a few lines, then each failing seed's trace (the first `traces` in full). */
export interface ReportOptions {
  seconds: number;
  /** Failing seeds whose trace is printed in full (the others get one line each). */
  traces?: number;
  /** The command that replays a seed. */
  replay: (seed: number) => string;
}

export function formatReport(results: readonly RunResult[], opts: ReportOptions): string {
  const failed = results.filter((r) => r.violations.length > 0);
  const t: Record<string, number> = {};
  for (const r of results) for (const [k, v] of Object.entries(r.stats)) if (!k.endsWith('Ms')) t[k] = (t[k] ?? 0) + v;
  const byInvariant = new Map<string, RunResult[]>();
  for (const r of failed) {
    for (const inv of new Set(r.violations.map((v) => v.invariant))) byInvariant.set(inv, [...(byInvariant.get(inv) ?? []), r]);
  }
  const skewed = (r: RunResult) => r.schedule.skews.some((s) => s !== 0);
  const n = (k: string) => t[k] ?? 0;
  const exercised = `POSTs ${n('posts')}, accepted ${n('accepted')}, cancels ${n('cancelled')}, kills ${n('kills')}, moves started ${n('starts')}`;
  const seedList = (runs: RunResult[]) => runs.map((r) => `${r.seed}${skewed(r) ? '*' : ''}`).join(', ');
  const lines = [
    `chaos: ${results.length} seeds in ${opts.seconds.toFixed(1)} s: ${failed.length} failed (${exercised})`,
    ...[...byInvariant].map(([inv, runs]) => `  ${inv.padEnd(18)} ${runs.length} seed(s): ${seedList(runs)}`),
    ...(failed.some(skewed) ? ['  (* = a run with an instance clock skewed)'] : []),
  ];
  const shown = failed.slice(0, opts.traces ?? failed.length);
  for (const r of shown) {
    lines.push('', r.trace ?? `seed ${r.seed}: ${r.violations.map((v) => v.message).join('; ')}`, `replay: ${opts.replay(r.seed)}`);
  }
  if (failed.length > shown.length) {
    lines.push('', `... and ${failed.length - shown.length} more failing seed(s):`);
    const oneLine = (r: RunResult) =>
      r.violations
        .map((v) => `[${v.invariant}] ${v.message}`)
        .join(' | ')
        .slice(0, 300);
    for (const r of failed.slice(shown.length)) lines.push(`  seed ${r.seed}: ${oneLine(r)}`);
  }
  if (failed.length > 0) lines.push('', `failing seeds: CHAOS_SEEDS=${failed.map((r) => r.seed).join(',')}`);
  return lines.join('\n');
}

/**
 * A run as a reader needs it to see what went wrong: the violations, the schedule, then one
 * timeline (real time since the schedule started) of what the harness did, what the clients got
 * back and what Kafka recorded (only the partitions of the POSTs in question, when the violations
 * name some), and each instance's last warnings.
 */
export function formatTrace(cluster: ChaosCluster, history: History, violations: readonly Violation[]): string {
  const t0 = history.t0;
  const posts = new Set(violations.map((v) => v.post));
  const all = posts.size === 0 || posts.has(null);
  const journal = cluster.journal.entries.filter((j) => all || posts.has(Number(j.topic.slice(1))));
  const at = (ms: number) => `@${String(Math.round(ms - t0)).padStart(4)} ms`;
  const timeline = [
    ...history.notes.map((n) => ({ at: n.at, line: `${at(n.at)}  ${n.text}` })),
    ...history.outcomes.map((o) => ({ at: o.sentAt, line: formatOutcome(o, t0) })),
    ...journal.map((j) => ({ at: j.realAt, line: formatEntry(j, t0) })),
  ].sort((a, b) => a.at - b.at);
  const lastWarnings = (log: string[]) => log.slice(-6).map((l) => `    ${l.slice(0, 300)}`);
  const logs = cluster.all.filter((i) => i.log.length > 0).flatMap((i) => [`  ${i.id}:`, ...lastWarnings(i.log)]);
  return [
    `chaos: seed ${cluster.schedule.seed} violated ${violations.length} invariant(s):`,
    ...violations.map((v) => `  [${v.invariant}]${v.post !== null ? ` POST #${v.post}:` : ''} ${v.message}`),
    'schedule:',
    formatSchedule(cluster.schedule),
    'what happened (real time since the schedule started):',
    ...timeline.slice(0, TIMELINE_MAX).map((x) => `  ${x.line}`),
    ...(timeline.length > TIMELINE_MAX ? [`  ... ${timeline.length - TIMELINE_MAX} more`] : []),
    ...(logs.length > 0 ? ['instances’ last warnings:', ...logs] : []),
  ].join('\n');
}
