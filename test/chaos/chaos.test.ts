// Issue 28 part 4: seeded fault schedules against several gateway instances sharing one
// simulated cluster (test/chaos/runner.ts): kills, pauses, clock skew, delays, errors and dropped
// connections on any Kafka call, client actions through HTTP at random instances; after each run
// the invariants of test/chaos/invariants.ts, checked over the wire.
//
// CI runs a fixed range of seeds (the same schedules every time); a failure prints each failing
// seed's schedule and trace, and how to replay it:
//   CHAOS_SEED=<n> node --import tsx --test test/chaos/chaos.test.ts
//   CHAOS_SEEDS=1-50,77 node --import tsx --test test/chaos/chaos.test.ts
// A replay runs the same schedule; the interleaving of the real sockets underneath may differ, so
// a failure found once may need a few replays (or `CHAOS_RUNS=...` of the bench, bench/chaos.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { performance } from 'node:perf_hooks';
import { runSeeds } from './runner.js';
import { formatReport, range, seedsFromEnv } from './report.js';

/** The CI range: ~240 seeds take about a minute on two cores, ten runs at a time (each mostly waits on timers). */
const CI_SEEDS = range(1, 240);
const PARALLEL = Number(process.env.CHAOS_PARALLEL ?? 10);

test('chaos: seeded fault schedules against several instances keep every invariant', { timeout: 15 * 60_000 }, async () => {
  const seeds = seedsFromEnv(process.env, CI_SEEDS);
  const started = performance.now();
  const results = await runSeeds(seeds, { parallel: PARALLEL });
  const report = formatReport(results, {
    seconds: (performance.now() - started) / 1000,
    traces: 5,
    replay: (seed) => `CHAOS_SEED=${seed} node --import tsx --test test/chaos/chaos.test.ts`,
  });
  const failed = results.filter((r) => r.violations.length > 0);
  if (failed.length > 0) assert.fail(report);
  console.log(report);
});
