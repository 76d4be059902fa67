// Giving the event loop back, shared by every sliced task of the gateway (body parsing, answer
// serialization, Kafka decodes, reconcile passes, plans, state-topic reads).
//
// Why one place: each sliced task yields after ~5-15 ms of work, with setImmediate. But Node
// runs, in one check phase, every immediate queued before it: with three tasks sliced at once
// (a 100,000-partition start decodes replica sizes while it validates, while a reconcile pass
// runs) their three slices ran back to back, then GC, and /healthz waited 60-80 ms between two
// polls of the sockets (bench:scale, a drift logger on a CPU profile). Here a task that yields
// queues up, and each turn of the event loop resumes ONE of them (first in, first out), so
// sockets are polled between any two slices. The work done is the same, in the same order per
// task; tasks take turns.
//
// The resumed task runs until it yields again or waits on I/O; the next one is resumed from an
// immediate queued during this turn's check phase, i.e. in the next turn, after the poll phase.

const waiting: (() => void)[] = [];
let head = 0;
let scheduled = false;

function resumeOne(): void {
  scheduled = false;
  const next = waiting[head];
  if (next === undefined) return;
  waiting[head++] = undefined as unknown as () => void;
  if (head === waiting.length) {
    waiting.length = 0;
    head = 0;
  } else schedule();
  next();
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(resumeOne);
}

/** Resolves in a later turn of the event loop, after sockets were polled; one waiting task per turn. */
export function yieldTurn(): Promise<void> {
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
    schedule();
  });
}

/** Tasks waiting for their turn (tests). */
export function waitingTurns(): number {
  return waiting.length - head;
}
