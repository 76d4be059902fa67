// Clock skew for in-process gateway instances. Each instance runs inside its own async context
// (AsyncLocalStorage) carrying its skew, and Date.now is replaced, once, by one that adds the skew
// of the context it is called from: every wall-clock read of that instance (the claims' leases in
// src/state, records' timestamps, start deadlines: whatever calls Date.now, or a reference to it
// taken after this module loaded) is off by its skew, as on a machine whose clock is wrong,
// without any option in src/state or src/reconcile. Monotonic time (performance.now,
// timers) is untouched, as on a real machine.
//
// Contexts are inherited by timers, promise continuations and sockets created inside them, so it
// is enough to create an instance's runtime, start its reconciler and serve its HTTP requests
// inside `withSkew`. The simulator and the harness run outside any instance: unskewed.
import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

const KEY = Symbol.for('kafka-admin-gateway.chaos.clock');
type Installed = { systemNow: () => number; skews: AsyncLocalStorage<number> };
const g = globalThis as unknown as Record<symbol, Installed | undefined>;

function install(): Installed {
  const existing = g[KEY];
  if (existing) return existing;
  const systemNow = Date.now.bind(Date);
  const skews = new AsyncLocalStorage<number>();
  Date.now = () => systemNow() + (skews.getStore() ?? 0);
  return (g[KEY] = { systemNow, skews });
}

const clock = install();

/**
 * The harness's clock, whatever context calls it: unskewed, and finer than a millisecond, so that
 * an answer and a Kafka entry in the same millisecond are still ordered (the simulator's journal
 * and the clients' answers are both stamped with it). Not Date.now's scale: only compared with itself.
 */
export const realNow = (): number => performance.timeOrigin + performance.now();

/** Runs `fn` (and everything it schedules) with Date.now off by `skewMs`. */
export function withSkew<T>(skewMs: number, fn: () => T): T {
  return clock.skews.run(skewMs, fn);
}

/** The skew of the calling context (0 outside any instance). */
export function currentSkew(): number {
  return clock.skews.getStore() ?? 0;
}
