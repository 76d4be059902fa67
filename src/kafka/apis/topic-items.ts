// What CreateTopics v7, DeleteTopics v6, CreatePartitions v3 and Metadata v12 share: topic
// ids as Kafka prints them, and per-topic results of requests that carry several topics.
import { ResponseError } from '@platformatic/kafka';
import { ERROR_CODES, kafkaErrorInfo } from '../errors-map.js';
import type { Answered, RawItem } from '../request.js';
import type { ItemResult, KafkaErrorInfo } from '../types.js';

const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/**
 * Topic ids as Kafka's own tools print them (Uuid.toString(): URL-safe base64 of the
 * 16 bytes, 22 chars), so what the gateway shows matches `kafka-topics.sh --describe`.
 * The client hands them over in the dashed hex form.
 */
export function topicIdOrNull(id: string | null | undefined): string | null {
  if (!id || id === ZERO_UUID) return null;
  const hex = id.replace(/-/g, '');
  return /^[0-9a-f]{32}$/i.test(hex) ? Buffer.from(hex, 'hex').toString('base64url') : id;
}

/**
 * Requests that carry several topics: names used more than once are rejected locally
 * (Kafka answers INVALID_REQUEST for duplicates; doing it here keeps results keyed by name).
 */
export function splitDuplicates<T>(items: T[], nameOf: (t: T) => string): { unique: T[]; duplicates: Set<string> } {
  const counts = new Map<string, number>();
  for (const it of items) counts.set(nameOf(it), (counts.get(nameOf(it)) ?? 0) + 1);
  const duplicates = new Set([...counts].filter(([, n]) => n > 1).map(([k]) => k));
  return { unique: items.filter((it) => !duplicates.has(nameOf(it))), duplicates };
}

function itemError(a: Answered<RawItem> | undefined): KafkaErrorInfo {
  if (!a) return kafkaErrorInfo(ERROR_CODES.UNKNOWN_SERVER_ERROR, 'The response holds no result for this topic');
  const { errorCode, errorMessage } = a.item;
  return kafkaErrorInfo(errorCode, errorMessage, errorCode === ERROR_CODES.THROTTLING_QUOTA_EXCEEDED ? a.throttleTimeMs : undefined);
}

/** Result list in request order; `ok` builds the value of a successful item. */
export function buildItems<In, Raw extends RawItem, T>(
  inputs: In[],
  nameOf: (i: In) => string,
  duplicates: Set<string>,
  answered: Map<string, Answered<Raw>>,
  ok: (raw: Raw) => T,
): ItemResult<T>[] {
  return inputs.map((input): ItemResult<T> => {
    const name = nameOf(input);
    if (duplicates.has(name)) return duplicateItem(name);
    const a = answered.get(name);
    return a && a.item.errorCode === 0 ? { ok: true, name, value: ok(a.item) } : { ok: false, name, error: itemError(a) };
  });
}

/** Resolve a low-level call's ResponseError (items carrying error codes) to its parsed response. */
export async function catchInBand<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (err) {
    if (err instanceof ResponseError && err.response && typeof err.response === 'object') return err.response as T;
    throw err;
  }
}

function duplicateItem(name: string): { ok: false; name: string; error: KafkaErrorInfo } {
  return { ok: false, name, error: kafkaErrorInfo(42, `Topic ${name} appears more than once in the request`) };
}
