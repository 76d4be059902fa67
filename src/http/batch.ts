// Multi-topic answers: one HTTP status for a request whose items can each succeed or
// fail independently (Kafka answers CreateTopics per topic).
import type { components } from './openapi-types.js';
import { problemType, type Problem } from './problem.js';
import type { MappedProblem } from './errors.js';

export type TopicItemResult = components['schemas']['TopicItemResult'];
export type TopicBatchResult = components['schemas']['TopicBatchResult'];
export type TopicItemFailed = components['schemas']['TopicItemFailed'];

/** Any per-topic result (creations, deletions, partition increases): a failure carries `problem`. */
export interface BatchItem {
  name: string;
  status: number;
  problem?: Problem;
}

/** One item's result, plus the Retry-After its failure asks for (if any). */
export interface ItemAnswer<R extends BatchItem = TopicItemResult> {
  result: R;
  retryAfter?: number;
}

export type BatchAnswer<R extends BatchItem = TopicItemResult> =
  | { status: number; kind: 'batch'; body: { items: R[] } }
  | { status: number; kind: 'problem'; body: Problem; headers?: Record<string, string> };

export function failedItem(name: string, mapped: MappedProblem): ItemAnswer<TopicItemFailed> {
  // The per-item problem has no `instance`: the items live inside one response whose
  // instance is the request, and repeating it per item adds nothing.
  const { instance: _instance, ...problem } = mapped.problem;
  return { result: { name, status: problem.status, problem }, ...(mapped.retryAfter !== undefined && { retryAfter: mapped.retryAfter }) };
}

/**
 * - every item succeeded            -> successStatus (201, or 200 for validateOnly)
 * - every item failed, same status  -> that status, as a problem carrying the items
 *                                      (Retry-After = the largest any item asked for)
 * - anything else                   -> 207 Multi-Status
 * Answering a uniform failure with its own status lets a client that sent one bad
 * batch handle it exactly like one bad topic (e.g. back off on 429).
 */
export function aggregateItems<R extends BatchItem = TopicItemResult>(
  answers: ItemAnswer<R>[],
  successStatus: 200 | 201,
  instance?: string,
): BatchAnswer<R> {
  const items = answers.map((a) => a.result);
  const statuses = new Set(items.map((i) => i.status));
  const allFailed = items.length > 0 && items.every((i) => i.problem !== undefined);

  if (items.every((i) => i.problem === undefined)) return { status: successStatus, kind: 'batch', body: { items } };
  if (!allFailed || statuses.size !== 1) return { status: 207, kind: 'batch', body: { items } };

  const status = items[0].status;
  const problems = items.map((i) => ('problem' in i ? i.problem : undefined)).filter((p): p is Problem => p !== undefined);
  const codes = new Set(problems.map((p) => p.kafkaError?.code));
  const first = problems[0];
  const sameKafkaError = codes.size === 1 && first.kafkaError !== undefined;

  const throttles = problems.map((p) => p.throttleTimeMs).filter((t): t is number => t !== undefined);
  const retryAfters = answers.map((a) => a.retryAfter).filter((r): r is number => r !== undefined);

  const problem: Problem = {
    // Same Kafka error everywhere: the batch *is* that problem. Otherwise say only what is common.
    type: sameKafkaError ? first.type : problemType('batch-failed'),
    title: sameKafkaError ? first.title : 'Every topic in the request failed',
    status,
    detail: `All ${items.length} topic(s) failed with status ${status}; see items for each topic.`,
    ...(instance !== undefined && { instance }),
    ...(sameKafkaError && { kafkaError: first.kafkaError }),
    ...(throttles.length > 0 && { throttleTimeMs: Math.max(...throttles) }),
    // Every item failed, so each is a TopicItemFailed whatever the batch's success shape.
    items: items.map((i): TopicItemFailed => ({ name: i.name, status: i.status, problem: i.problem! })),
  };
  const headers = retryAfters.length > 0 ? { 'Retry-After': String(Math.max(...retryAfters)) } : undefined;
  return { status, kind: 'problem', body: problem, ...(headers && { headers }) };
}
