// The client side of a chaos run: each scheduled action sent through HTTP (supertest against the
// app of a live instance) and what came back, stamped on the real clock. What the API answered
// is what the invariants hold the gateway to: a 202 to a POST, a 200 `cancelled` to a DELETE, a
// 200 to a PATCH pausing are promises.
//
// An answer that comes from an instance killed before it arrived is not an answer (its client
// would have seen the connection reset): it is recorded as status 0, as a timeout is.
import { realNow } from './clock.js';
import type { ChaosCluster, Incarnation } from './cluster.js';
import type { ChaosEvent, PatchBody } from './schedule.js';

/** How long a client waits for an answer. */
const HTTP_TIMEOUT_MS = 8000;

export interface Outcome {
  event: ChaosEvent;
  /** Instance that was asked (null: none was alive, or the POST it refers to has no id). */
  via: string | null;
  sentAt: number;
  answeredAt: number;
  /** HTTP status; 0 = no answer (timeout, the instance died, nothing sent). */
  status: number;
  body: any;
  note?: string;
}

/** Everything the clients sent and got back, in the order sent. */
export class History {
  readonly outcomes: Outcome[] = [];
  /** POST index -> the id its 202 named. */
  readonly ids = new Map<number, string>();
  /** Cluster events the runner executed (kills, restarts, pauses, faults), for the trace. */
  readonly notes: { at: number; text: string }[] = [];
  /** POST index -> its answer (or its loss): a PATCH or DELETE of it waits for that first. */
  readonly #answered = new Map<number, Promise<void>>();

  constructor(readonly t0: number) {}

  note(text: string): void {
    this.notes.push({ at: realNow(), text });
  }

  /** Resolves once POST #post has been answered (or lost); at once if it was never sent. */
  answered(post: number): Promise<void> {
    return this.#answered.get(post) ?? Promise.resolve();
  }

  expect(post: number, answer: Promise<void>): void {
    this.#answered.set(post, answer);
  }

  posts(): Outcome[] {
    return this.outcomes.filter((o) => o.event.kind === 'post');
  }
}

function postBody(e: Extract<ChaosEvent, { kind: 'post' }>): Record<string, unknown> {
  return {
    partitions: e.partitions,
    ...(e.throttle !== null && { throttle: e.throttle }),
    ...(e.concurrency !== null && { concurrency: e.concurrency, order: e.order }),
  };
}

type Action = Extract<ChaosEvent, { kind: 'post' | 'patch' | 'delete' }>;
type Answer = { status: number; body: unknown; note?: string };

async function send(cluster: ChaosCluster, inst: Incarnation, method: Action['kind'], path: string, body?: unknown): Promise<Answer> {
  const req = cluster.http(inst)[method](path).timeout(HTTP_TIMEOUT_MS);
  const answer = (async () => {
    try {
      const res = await (body === undefined ? req : req.send(body as object));
      return { status: res.status, body: res.body as unknown };
    } catch (err) {
      return { status: 0, body: null, note: err instanceof Error ? err.message : String(err) };
    }
  })();
  // A killed instance's client sees its connection reset at once, whatever its code still does.
  return Promise.race([answer, inst.died.then(() => ({ status: 0, body: null, note: `${inst.id} was killed` }))]);
}

/** Sends one client action of the schedule and records its outcome in `history`. */
export async function perform(cluster: ChaosCluster, history: History, e: Action): Promise<void> {
  if (e.kind === 'post') {
    const done = send1(cluster, history, e);
    history.expect(e.post, done);
    return done;
  }
  // The client needs the POST's answer (its id) first: the action is sent when it has it.
  await history.answered(e.post);
  return send1(cluster, history, e);
}

async function send1(cluster: ChaosCluster, history: History, e: Action): Promise<void> {
  const sentAt = realNow();
  const inst = cluster.live(e.via);
  const outcome: Outcome = { event: e, via: inst?.id ?? null, sentAt, answeredAt: sentAt, status: 0, body: null };
  history.outcomes.push(outcome);
  if (!inst) {
    outcome.note = 'no live instance';
    return;
  }
  let answer: Answer;
  if (e.kind === 'post') {
    answer = await send(cluster, inst, 'post', '/reassignments', postBody(e));
  } else {
    const id = history.ids.get(e.post);
    if (id === undefined) {
      outcome.via = null;
      outcome.note = `POST #${e.post} has no id (not accepted, or not answered yet)`;
      return;
    }
    const path = `/reassignments/${id}`;
    answer = e.kind === 'patch' ? await send(cluster, inst, 'patch', path, e.body) : await send(cluster, inst, 'delete', path);
  }
  outcome.answeredAt = realNow();
  if (inst.killedAt !== null && inst.killedAt <= outcome.answeredAt) {
    outcome.note = `answered ${answer.status} after ${inst.id} was killed: no answer`;
    return;
  }
  outcome.status = answer.status;
  outcome.body = answer.body;
  if (answer.note) outcome.note = answer.note;
  if (e.kind === 'post' && answer.status === 202) history.ids.set(e.post, (answer.body as { id: string }).id);
}

/** Sends PATCH {paused: false} for `id` (the quiesce lifts pauses left by the schedule). */
export async function resume(cluster: ChaosCluster, history: History, post: number, id: string): Promise<void> {
  const inst = cluster.live(0);
  if (!inst) return;
  const body: PatchBody = { paused: false };
  const sentAt = realNow();
  const answer = await send(cluster, inst, 'patch', `/reassignments/${id}`, body);
  history.outcomes.push({
    event: { kind: 'patch', at: -1, post, via: inst.slot, body },
    via: inst.id,
    sentAt,
    answeredAt: realNow(),
    status: answer.status,
    body: answer.body,
    note: 'quiesce: resume',
  });
}

export function formatOutcome(o: Outcome, t0: number): string {
  const e = o.event;
  const what =
    e.kind === 'patch' ? `PATCH #${e.post} ${JSON.stringify(e.body)}` : 'post' in e ? `${e.kind.toUpperCase()} #${e.post}` : e.kind;
  const body = o.body as { id?: string; state?: string; title?: string } | null;
  const id = body?.id && e.kind === 'post' && `id ${body.id}`;
  const parts = [o.status, body?.state, id, o.status >= 400 && body?.title && `(${body.title})`];
  const said = o.status === 0 ? 'no answer' : parts.filter(Boolean).join(' ');
  const span = `@${String(Math.round(o.sentAt - t0)).padStart(4)}..${Math.round(o.answeredAt - t0)} ms`;
  return `${span}  ${what} via ${o.via ?? '-'} -> ${said}${o.note ? ` [${o.note}]` : ''}`;
}
