// GET /reassignments/{id} (the summary, no detail) answered by the HTTP thread, from what the
// worker posted (summary-posts.ts), when that is as fresh as the worker's own answer would be.
//
// Why: pollers (the console, scripts) read a live reassignment's summary every few seconds, and
// forwarded to the worker each one waited for the worker's event loop twice (the request in,
// the state topic's end offset back), behind its reconcile pass slices and its heap's pauses
// (collections of up to 36 ms at 100,000 moving partitions): the GET's tail was 50-86 ms in
// some runs (docs/worker-thread.md). Here it waits only for this thread and for Kafka.
//
// The guarantee is the worker's (src/state/store-tail.ts refresh): an answer holds every write
// acknowledged before the GET arrived, this instance's or another's. The log's offsets are
// asked after the GET arrived (on this thread's own connection to the state topic's leader);
// the posted body counts only if its position has reached that end, in the same topic, with no
// record lost below what was read (an end below the position is a reset: the worker decides
// it). Otherwise, and for anything not posted (an unknown id, one that ended before the worker
// started, ?detail), the worker answers, as before. Callers that arrive while an offsets request
// is out share the one sent after it, as the store's refresh does.
import type { Request, RequestHandler, Response } from 'express';
import { routeMatchOf } from '../http/route-table.js';
import { askedAfterEachCall, settledBy, type LogOffsets } from '../state/log-offsets.js';
import type { SummaryPost } from './protocol.js';

/** The operation this thread answers (openapi.yaml's GET /reassignments/{id}). */
const SUMMARY_OPERATION = 'getReassignment';

/** The state topic's offsets (src/kafka/state-topic.ts offsets(), on the HTTP thread's connections). */
export interface StateLogOffsets {
  offsets(): Promise<{ start: bigint; end: bigint; topicId?: string }>;
}

export class PostedSummaries {
  readonly #bodies = new Map<string, string>();
  #at: SummaryPost['at'] = null;
  /** Bumped when the worker is gone: an answer under way from the old one's posts is not given. */
  #generation = 0;
  /** The log's offsets, asked after each call; GETs meanwhile share one request (as the store's refresh). */
  readonly #offsets: () => Promise<LogOffsets>;
  /** Answers given here, and GETs passed to the worker (the metric reads them). */
  answered = 0;
  passed = 0;

  constructor(log: StateLogOffsets) {
    this.#offsets = askedAfterEachCall(() => log.offsets());
  }

  /** A post of the worker (in the order posted). */
  receive(m: SummaryPost): void {
    for (const id of m.drop) this.#bodies.delete(id);
    for (const [id, json] of m.set) this.#bodies.set(id, json);
    this.#at = m.at;
  }

  /** The worker ended: its posts say nothing any more (the next one posts afresh). */
  clear(): void {
    this.#bodies.clear();
    this.#at = null;
    this.#generation++;
  }

  /** The JSON to answer GET /reassignments/{id} with, or null: the worker answers it. Never rejects. */
  async answer(id: string): Promise<string | null> {
    const before = this.#at;
    const generation = this.#generation;
    if (before === null || !this.#bodies.has(id)) return this.pass();
    let offsets: LogOffsets;
    try {
      offsets = await this.#offsets();
    } catch {
      return this.pass();
    }
    const at = this.#at;
    const fresh =
      generation === this.#generation &&
      at !== null &&
      at.topicId === before.topicId &&
      settledBy(offsets, before.position, at.position, at.topicId);
    const body = fresh ? this.#bodies.get(id) : undefined;
    if (body === undefined) return this.pass();
    this.answered++;
    return body;
  }

  /** Counts a GET the worker answers (this one: not posted, not fresh; the route: one with a query). */
  pass(): null {
    this.passed++;
    return null;
  }
}

/**
 * The forwarder's keepHere: GET /reassignments/{id} without a body goes on to this thread's
 * access control, validation and summaryRoute (a GET with a body, odd as it is, goes to the
 * worker unread, as before: the body parsers here would consume it).
 */
export function summaryGetKeptHere(req: Request, res: Response): boolean {
  if (req.method !== 'GET') return false;
  const match = routeMatchOf(res);
  if (match.kind !== 'operation' || match.operation.operationId !== SUMMARY_OPERATION) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

/**
 * The route for GET /reassignments/{id} on the HTTP thread (mounted with the others, after
 * access control and validation): the posted summary when it is fresh, else `forward` (the
 * worker's answer). With a query (?detail) it always forwards.
 */
export function summaryRoute(posted: PostedSummaries, forward: RequestHandler): RequestHandler {
  return async (req, res, next) => {
    const id = req.params.id;
    const body = typeof id === 'string' && !req.originalUrl.includes('?') ? await posted.answer(id) : posted.pass();
    if (body === null) return forward(req, res, next);
    // As the worker's route sends it (res.json of the same object): the same type, ETag and bytes.
    res.status(200).type('application/json').send(body);
  };
}
