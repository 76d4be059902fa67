// Two rules about the state topic's offsets shared by the store's refresh (store-tail.ts) and the
// HTTP thread's summary answers (src/worker/summary-answers.ts): when a view is as fresh as a read
// needs, and how concurrent callers share the offsets request.
import type { StateLog } from './store-types.js';

export type LogOffsets = Awaited<ReturnType<StateLog['offsets']>>;

/**
 * Whether a view that has applied everything below `position` in topic `topicId` holds every
 * write acknowledged before a read that began when the position was `before`, given the log's
 * offsets asked after the read began: the position has reached the end, in the same topic, and
 * the end is not below `before` (the log lost records: a reset, which only a whole read decides).
 */
export function settledBy(offsets: LogOffsets, before: bigint, position: bigint, topicId: string | null): boolean {
  return (
    (offsets.topicId === undefined || offsets.topicId === topicId) &&
    offsets.end >= before &&
    offsets.start <= position &&
    offsets.end <= position
  );
}

/**
 * `ask` as callers need it: each gets an answer asked after it called. Callers that arrive while a
 * request is out share the one sent after it (console pages polling together send two requests,
 * not one each).
 */
export function askedAfterEachCall<T>(ask: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | undefined;
  let next: Promise<T> | undefined;
  const send = (): Promise<T> => {
    next = undefined;
    const asked = ask();
    inFlight = asked;
    const done = () => {
      if (inFlight === asked) inFlight = undefined;
    };
    asked.then(done, done);
    return asked;
  };
  return () => {
    if (next) return next;
    if (!inFlight) return send();
    return (next = inFlight.then(send, send));
  };
}
