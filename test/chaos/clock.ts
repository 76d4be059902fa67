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

const KEY = Symbol.for('kafka-admin-gateway.chaos.clock');
type Installed = { realNow: () => number; skews: AsyncLocalStorage<number> };
const g = globalThis as unknown as Record<symbol, Installed | undefined>;

function install(): Installed {
  const existing = g[KEY];
  if (existing) return existing;
  const realNow = Date.now.bind(Date);
  const skews = new AsyncLocalStorage<number>();
  Date.now = () => realNow() + (skews.getStore() ?? 0);
  return (g[KEY] = { realNow, skews });
}

const clock = install();

/** The true wall clock (what the harness and the simulator use), whatever context calls it. */
export const realNow: () => number = clock.realNow;

/** Runs `fn` (and everything it schedules) with Date.now off by `skewMs`. */
export function withSkew<T>(skewMs: number, fn: () => T): T {
  return clock.skews.run(skewMs, fn);
}

/** The skew of the calling context (0 outside any instance). */
export function currentSkew(): number {
  return clock.skews.getStore() ?? 0;
}
