// Runs a pure computation given as steps (src/domain/steps.ts) on the event loop without
// blocking it: it advances the generator for up to `sliceMs`, then lets the loop run (I/O,
// timers, other requests: /healthz answers while a 100,000-partition plan is computed) with
// setImmediate, and goes on. Why not a worker_thread: the planner's input (every partition) and
// its answer would be copied across threads by structured clone, itself a synchronous block of
// tens of milliseconds at 100k partitions on each side; the run would need its own module loading
// (tsx in development, dist/ in production); and a 2-core host gains little from the second
// thread. Slicing keeps one copy of the data and a pure, synchronous planner for tests and bench.
//
// Each slice is published on the diagnostics channel `kafka-admin-gateway:plans` (when someone
// subscribes): tests and bench/plans observe slicing through it.
import { channel } from 'node:diagnostics_channel';
import { performance } from 'node:perf_hooks';
import { runInSlices } from '../event-loop-turns.js';
import type { Steps } from '../domain/steps.js';

/** Longest synchronous piece of planning before the event loop gets a turn (the target is 50 ms). */
export const DEFAULT_SLICE_MS = 10;

export const PLAN_CHANNEL = 'kafka-admin-gateway:plans';
const plans = channel(PLAN_CHANNEL);

export type PlanRunEvent =
  /** `ms`: wall-clock length of the slice; `cpuMs`: this process's CPU time in it (all threads, GC included). */
  | { readonly type: 'slice'; readonly label: string; readonly index: number; readonly ms: number; readonly cpuMs: number }
  | { readonly type: 'done'; readonly label: string; readonly slices: number; readonly maxSliceMs: number; readonly ms: number };

export interface SliceOptions {
  readonly sliceMs?: number;
  /** Names the computation in the published events. */
  readonly label?: string;
}

export async function runSliced<T>(steps: Steps<T>, opts: SliceOptions = {}): Promise<T> {
  const label = opts.label ?? 'plan';
  const began = performance.now();
  let cpu: NodeJS.CpuUsage | null = null;
  let slices = 0;
  let maxSliceMs = 0;
  return runInSlices(
    steps,
    opts.sliceMs ?? DEFAULT_SLICE_MS,
    {},
    {
      sliceStarted() {
        cpu = plans.hasSubscribers ? process.cpuUsage() : null;
      },
      sliceEnded(ms, done, at) {
        slices++;
        maxSliceMs = Math.max(maxSliceMs, ms);
        if (plans.hasSubscribers) {
          const used = cpu ? process.cpuUsage(cpu) : { user: 0, system: 0 };
          plans.publish({ type: 'slice', label, index: slices, ms, cpuMs: (used.user + used.system) / 1000 } satisfies PlanRunEvent);
        }
        if (done && plans.hasSubscribers) plans.publish({ type: 'done', label, slices, maxSliceMs, ms: at - began } satisfies PlanRunEvent);
      },
    },
  );
}
