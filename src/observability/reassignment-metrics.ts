// What the reconciler and the reassignment service report about reassignments and
// throttles. The interface lives below src/http so that services need no HTTP code;
// src/http/reassignment-metrics.ts implements it with prom-client on the app's registry.
export interface ReassignmentMetrics {
  /** Partitions moving now: owner = gateway (one of its reassignments) or external. */
  setPartitionsMoving(owner: 'gateway' | 'external', n: number): void;
  /** Per running reassignment; ids not passed are dropped (finished ones must not linger). */
  setProgress(list: { id: string; bytesRemaining: number; etaSeconds: number | null; stalled?: boolean; queued?: number; moving?: number }[]): void;
  /**
   * Throttle rates configured now, per broker and direction, on the brokers the gateway's
   * demands or ledger name (read by every throttle sync); brokers not passed are dropped.
   */
  setThrottleRates(list: { broker: number; leader: number | null; follower: number | null }[]): void;
  throttleRemoved(cause: string, delaySeconds: number | null): void;
  /** Health interlocks (src/reconcile/health.ts): the reassignments held now, with the kinds of trouble; ids not passed are dropped. */
  setHeld?(list: { id: string; reasons: string[] }[]): void;
  /** A hold began (counted per kind of trouble) or ended. */
  holdChanged?(event: 'held' | 'resumed', reasons: string[]): void;
  /** Per running deadline reassignment (finishBy): seconds between its expected end and finishBy (negative: late), and whether it holds; ids not passed are dropped. */
  setDeadlines?(list: { id: string; slackSeconds: number; holds: boolean }[]): void;
  reconcilerError(step: string): void;
  /** How long one step of a pass took (wall time, including waits on Kafka and the state topic). */
  reconcileStep?(step: string, seconds: number): void;
  /** The state topic: readable (1) or not (0), missing (1 = deleted outside the gateway), view rebuilt after a reset. */
  stateStore(event: { type: 'ok' | 'unavailable' | 'missing' } | { type: 'reset'; cause: string }): void;
  /**
   * A state-topic write under a claim that was refused (src/state/fence.ts): `before-write`, by
   * this instance's own lease check (nothing produced); `in-log`, a record read in the log whose
   * claim had ended (anyone's write; each refused batch counted once by every instance that reads it).
   */
  fencedWrite?(where: 'before-write' | 'in-log'): void;
  /**
   * A pass ended. `ok` = every step succeeded: only then does the last-success timestamp move,
   * so an alert on its age catches a reconciler that runs but keeps failing a step. `seconds`:
   * the pass's wall time (Kafka and state-topic waits and event-loop yields included).
   */
  reconciled(ok?: boolean, seconds?: number): void;
  /** RECONCILE_INTERVAL_MS, exported so alerts can say "N intervals" without repeating the setting. */
  setReconcileInterval(seconds: number): void;
  /**
   * Seconds since the oldest gateway-owned throttle whose reason ended (its reassignment
   * finished, its request expired) is still waiting to be removed; 0 when nothing waits.
   */
  setThrottleRemovalPending(seconds: number): void;
}
