// Which topics a plan may touch: `topics` / `excludeTopics`, each a list of names or `/regex/`.
// A name that is not a topic is an error (the caller meant something that is not there); a
// pattern that matches nothing is only a warning (patterns are written ahead of time).
import { KAFKA_ERRORS } from '../reassignment/types.js';
import type { PlanError, PlanWarning } from './types.js';

/** Longest pattern accepted: patterns run against every topic name. */
export const MAX_PATTERN_LENGTH = 256;

type Matcher = { kind: 'name'; name: string } | { kind: 'regex'; source: string; re: RegExp };

export interface TopicScope {
  /** Topic names in scope, sorted (UTF-16 order, as Kafka's tools sort). */
  readonly topics: readonly string[];
  readonly filtered: boolean;
  readonly errors: readonly PlanError[];
  readonly warnings: readonly PlanWarning[];
}

export function isPattern(s: string): boolean {
  return s.length >= 2 && s.startsWith('/') && s.endsWith('/');
}

function parse(list: readonly string[] | undefined, field: string, errors: PlanError[]): Matcher[] {
  const out: Matcher[] = [];
  (list ?? []).forEach((s, i) => {
    if (!isPattern(s)) return void out.push({ kind: 'name', name: s });
    const source = s.slice(1, -1);
    if (source.length > MAX_PATTERN_LENGTH) {
      errors.push({
        path: `/${field}/${i}`,
        code: 'INVALID_TOPIC_PATTERN',
        message: `Pattern ${s} is longer than ${MAX_PATTERN_LENGTH} characters.`,
        kafkaError: null,
      });
      return;
    }
    try {
      out.push({ kind: 'regex', source: s, re: new RegExp(source, 'u') });
    } catch (err) {
      errors.push({
        path: `/${field}/${i}`,
        code: 'INVALID_TOPIC_PATTERN',
        message: `${s} is not a valid regular expression: ${(err as Error).message}`,
        kafkaError: null,
      });
    }
  });
  return out;
}

const sortNames = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Resolves the scope against the topics that exist. Linear in topics × patterns. */
export function resolveTopicScope(
  all: readonly string[],
  include: readonly string[] | undefined,
  exclude: readonly string[] | undefined,
): TopicScope {
  const errors: PlanError[] = [];
  const warnings: PlanWarning[] = [];
  const existing = new Set(all);
  const inc = parse(include, 'topics', errors);
  const exc = parse(exclude, 'excludeTopics', errors);

  const checkNames = (matchers: Matcher[], list: readonly string[] | undefined, field: string) => {
    (list ?? []).forEach((s, i) => {
      if (isPattern(s)) return;
      if (!existing.has(s)) {
        errors.push({
          path: `/${field}/${i}`,
          code: 'UNKNOWN_TOPIC',
          message: `Unable to find a topic named ${s}.`,
          topic: s,
          kafkaError: KAFKA_ERRORS.UNKNOWN_TOPIC_OR_PARTITION,
        });
      }
    });
    for (const m of matchers) {
      if (m.kind === 'regex' && !all.some((t) => m.re.test(t))) {
        warnings.push({ code: 'PATTERN_MATCHES_NOTHING', message: `${field} pattern ${m.source} matches no topic.` });
      }
    }
  };
  checkNames(inc, include, 'topics');
  checkNames(exc, exclude, 'excludeTopics');

  const names = new Set(inc.filter((m) => m.kind === 'name').map((m) => (m as { name: string }).name));
  const incRes = inc.filter((m): m is Extract<Matcher, { kind: 'regex' }> => m.kind === 'regex').map((m) => m.re);
  const excNames = new Set(exc.filter((m) => m.kind === 'name').map((m) => (m as { name: string }).name));
  const excRes = exc.filter((m): m is Extract<Matcher, { kind: 'regex' }> => m.kind === 'regex').map((m) => m.re);
  const included = (t: string) => inc.length === 0 || names.has(t) || incRes.some((re) => re.test(t));
  const excluded = (t: string) => excNames.has(t) || excRes.some((re) => re.test(t));

  const topics = [...all].filter((t) => included(t) && !excluded(t)).sort(sortNames);
  return { topics, filtered: inc.length > 0 || exc.length > 0, errors, warnings };
}
