// The parts of a pass that keep their own state between passes, built from the reconciler's deps.
import { DeadlinePacing } from './deadline-pacing.js';
import { HealthInterlock } from './health.js';
import { LeaderElections } from './leader-elections.js';
import { Pacer } from './pacer.js';
import type { ReconcilerDeps } from './pass/context.js';

export interface ReconcilerParts {
  /** Deadline pacing (issue 30): the throttle of `finishBy` reassignments, each pass (deadline-pacing.ts). */
  readonly deadlines: DeadlinePacing;
  readonly pacer: Pacer;
  /** Preferred leader elections of completed partitions (electLeaders: true; leader-elections.ts). */
  readonly elections: LeaderElections;
  /** Health interlocks (issue 30): holds paced reassignments on cluster trouble (health.ts). */
  readonly health: HealthInterlock;
}

export function reconcilerParts(deps: ReconcilerDeps, now: () => number): ReconcilerParts {
  const deadlines = new DeadlinePacing({
    store: deps.store,
    progress: deps.progress,
    config: deps.config,
    now,
    bandwidth: deps.bandwidthBytesPerSecond ?? null,
    ...(deps.metrics && { metrics: deps.metrics }),
    ...(deps.logger && { logger: deps.logger }),
  });
  const pacer = new Pacer({
    kafka: deps.kafka,
    store: deps.store,
    throttles: deps.throttles,
    config: deps.config,
    ...(deps.logger && { logger: deps.logger }),
    now,
  });
  const elections = new LeaderElections({
    kafka: deps.kafka,
    store: deps.store,
    config: deps.config,
    now,
    ...(deps.logger && { logger: deps.logger }),
  });
  const health = new HealthInterlock({
    kafka: deps.kafka,
    store: deps.store,
    config: deps.config,
    now,
    ...(deps.metrics && { metrics: deps.metrics }),
    ...(deps.logger && { logger: deps.logger }),
  });
  return { deadlines, pacer, elections, health };
}
