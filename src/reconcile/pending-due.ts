// When a pending record is past its start timeout, as the reconciler judges it (its pendingDue).
import { performance } from 'node:perf_hooks';
import type { ReassignmentRecord } from '../state/records.js';
import type { StateView } from '../state/store.js';

export class PendingDeadlines {
  /** Pending records by id -> when this instance first saw them pending (monotonic ms). */
  readonly #seen = new Map<string, number>();
  readonly #view: () => StateView;

  constructor(view: () => StateView) {
    this.#view = view;
  }

  /**
   * Whether a pending record's writer has had its start timeout: measured on this instance's
   * monotonic clock from when it first saw the record pending, never by comparing the writer's
   * wall-clock deadline with ours (a survivor 23 s behind left a dead writer's record pending,
   * with its throttles, for longer than the harness waits: issue 28's harness, seed 70). The
   * timeout is the writer's own (startDeadline - createdAt: one clock, no skew in it).
   */
  due(r: ReassignmentRecord): boolean {
    const mono = performance.now();
    let seen = this.#seen.get(r.id);
    if (seen === undefined) {
      // Forget records that are no longer pending (a map of the pending ones only).
      for (const id of this.#seen.keys()) if (this.#view().reassignments.get(id)?.state !== 'pending') this.#seen.delete(id);
      this.#seen.set(r.id, (seen = mono));
    }
    return mono - seen >= Math.max(0, r.startDeadline - r.createdAt);
  }
}
