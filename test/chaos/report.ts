// Which seeds a chaos run covers (fixed by default, so CI is repeatable; CHAOS_SEED / CHAOS_SEEDS
// to choose others) and the report of a batch: totals, what the runs exercised, and every failing
// seed with its trace and the command that replays it.
import type { RunResult } from './runner.js';

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
  for (const part of many.split(',').map((s) => s.trim()).filter(Boolean)) {
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
export function formatReport(results: readonly RunResult[], opts: { seconds: number; traces?: number; replay: (seed: number) => string }): string {
  const failed = results.filter((r) => r.violations.length > 0);
  const totals: Record<string, number> = {};
  for (const r of results) for (const [k, v] of Object.entries(r.stats)) if (!k.endsWith('Ms')) totals[k] = (totals[k] ?? 0) + v;
  const byInvariant = new Map<string, number[]>();
  for (const r of failed) for (const inv of new Set(r.violations.map((v) => v.invariant))) byInvariant.set(inv, [...(byInvariant.get(inv) ?? []), r.seed]);
  const skewed = (r: RunResult) => r.schedule.skews.some((s) => s !== 0);
  const lines = [
    `chaos: ${results.length} seeds in ${opts.seconds.toFixed(1)} s: ${failed.length} failed` +
      ` (POSTs ${totals.posts ?? 0}, accepted ${totals.accepted ?? 0}, cancels ${totals.cancelled ?? 0}, kills ${totals.kills ?? 0}, moves started ${totals.starts ?? 0})`,
    ...[...byInvariant].map(([inv, seeds]) => `  ${inv.padEnd(18)} ${seeds.length} seed(s): ${seeds.map((s) => `${s}${skewed(results.find((r) => r.seed === s)!) ? '*' : ''}`).join(', ')}`),
    ...(failed.some(skewed) ? ['  (* = a run with an instance clock skewed)'] : []),
  ];
  const shown = failed.slice(0, opts.traces ?? failed.length);
  for (const r of shown) lines.push('', r.trace ?? `seed ${r.seed}: ${r.violations.map((v) => v.message).join('; ')}`, `replay: ${opts.replay(r.seed)}`);
  if (failed.length > shown.length) {
    lines.push('', `... and ${failed.length - shown.length} more failing seed(s):`);
    for (const r of failed.slice(shown.length)) lines.push(`  seed ${r.seed}: ${r.violations.map((v) => `[${v.invariant}] ${v.message}`).join(' | ').slice(0, 300)}`);
  }
  if (failed.length > 0) lines.push('', `failing seeds: CHAOS_SEEDS=${failed.map((r) => r.seed).join(',')}`);
  return lines.join('\n');
}
