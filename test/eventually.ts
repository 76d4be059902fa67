// Waiting in a test for what happens asynchronously (a reconcile pass, a metric, a state-topic
// write, a reconnect): poll a condition until it holds or a deadline passes, never a fixed sleep.
// One helper for every test; on a timeout it says what it waited for.

import { inspect } from 'node:util';

export interface EventuallyOptions {
  /** How long to wait in all; default 10 s. */
  readonly timeoutMs?: number;
  /** Pause between two checks; default 50 ms. */
  readonly everyMs?: number;
}

/** Not yet: undefined (or a throw, e.g. an assertion that does not hold yet). */
export type Check<T> = () => T | undefined | Promise<T | undefined>;

/**
 * Polls `check` until it returns a value other than undefined, and returns that value. A check
 * that throws counts as "not yet" and its error is kept. After the deadline, throws an error that
 * names `what` it waited for, with the last check's error in its message and as its cause.
 */
export function eventually<T>(what: string, check: Check<T>, options?: EventuallyOptions): Promise<T>;
/** The same, named by the check's own source text; timeout and pause as positional arguments. */
export function eventually<T>(check: Check<T>, timeoutMs?: number, everyMs?: number): Promise<T>;
export async function eventually<T>(first: string | Check<T>, second?: Check<T> | number, third?: EventuallyOptions | number): Promise<T> {
  const [what, check, timeoutMs = 10_000, everyMs = 50] =
    typeof first === 'string'
      ? [first, second as Check<T>, (third as EventuallyOptions | undefined)?.timeoutMs, (third as EventuallyOptions | undefined)?.everyMs]
      : [sourceOf(first), first, second as number | undefined, third as number | undefined];
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const why = last === undefined ? '' : `; the last check threw: ${describeThrown(last)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`, { cause: last });
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** What a check threw, for the timeout's message: an Error's message, a string as it is, anything else inspected. */
function describeThrown(thrown: unknown): string {
  return thrown instanceof Error ? thrown.message : typeof thrown === 'string' ? thrown : inspect(thrown);
}

/** The check's source on one line, shortened: names an unnamed wait in the timeout's message. */
function sourceOf(check: () => unknown): string {
  const text = check.toString().replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 197)}...` : text;
}
