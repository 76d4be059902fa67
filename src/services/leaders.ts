// Leader elections on demand (POST /leaders/elections): preferred or unclean, for listed
// partitions, whole topics or the whole cluster, through ElectLeaders to the controller.
//
// Listed partitions are sent as they are: Kafka answers each (elected, not needed, not
// available, unknown). For topics and `all`, Metadata says which partitions could need an
// election (src/domain/leaders.ts needsElection) and only those are sent, in requests of
// ELECTION_BATCH partitions: at 100,000 partitions that is a few requests, each well under
// KRaft's 10,000 records per operation, and the answer lists only the partitions an election
// was tried for, as Kafka's own election of every partition does; the others are counted as
// not needed. Memory: one Metadata read (the planner's) and the results of the elections tried.
import {
  batches,
  count,
  emptySummary,
  needsElection,
  outcomeOf,
  parseElectionRequest,
  type ElectionKind,
  type ElectionOutcomeKind,
  type ElectionRequest,
  type ElectionRequestBody,
  type ElectionSummary,
  type FieldError,
} from '../domain/leaders.js';
import { KafkaRequestError, type KafkaFailureKind } from '../kafka/errors.js';
import { kafkaErrorInfo } from '../kafka/errors-map.js';
import type { KafkaAdmin } from '../kafka/kafka-admin.js';
import { canElectLeaders, ELECTION_BATCH, electLeaders } from '../kafka/leaders.js';
import type { KafkaErrorInfo } from '../kafka/types.js';

export interface PartitionElectionResult {
  topic: string;
  partition: number;
  outcome: ElectionOutcomeKind;
  /** Kafka's answer when it was not a success (name, code, message). */
  kafkaError?: KafkaErrorInfo;
}

export type ElectionOutcome =
  | {
      kind: 'ok';
      type: ElectionKind;
      scope: ElectionRequest['scope']['kind'];
      summary: ElectionSummary;
      results: PartitionElectionResult[];
    }
  /** `topics` named topics Kafka does not have; nothing was elected. */
  | { kind: 'unknown-topics'; topics: string[] }
  /** The Kafka layer cannot send ElectLeaders (a test double). */
  | { kind: 'not-supported' }
  /** Kafka refused a whole request (top-level error), or could not be reached; `partial` counts what was answered before. */
  | { kind: 'kafka-error'; error: KafkaErrorInfo; failure: KafkaFailureKind; partial: ElectionSummary };

export type { ElectionRequestBody, FieldError };

export class LeaderElectionService {
  constructor(private readonly kafka: KafkaAdmin) {}

  /** The request as the API's body: its checks beyond the schema first (src/domain/leaders.ts); nothing is sent when they fail. */
  async electFromBody(body: ElectionRequestBody): Promise<ElectionOutcome | { kind: 'invalid'; errors: FieldError[] }> {
    const parsed = parseElectionRequest(body);
    return parsed.ok ? this.elect(parsed.request) : { kind: 'invalid', errors: parsed.errors };
  }

  async elect(request: ElectionRequest): Promise<ElectionOutcome> {
    if (!canElectLeaders(this.kafka)) return { kind: 'not-supported' };
    const summary = emptySummary();
    const results: PartitionElectionResult[] = [];
    let candidates: { topic: string; partition: number }[];
    const scope = request.scope;
    if (scope.kind === 'partitions') {
      candidates = [...scope.partitions];
      summary.partitions = candidates.length;
    } else {
      const placement = await this.kafka.describePartitions(scope.kind === 'topics' ? [...scope.topics] : null);
      if (scope.kind === 'topics') {
        const found = new Set(placement.map((t) => t.name));
        const missing = scope.topics.filter((t) => !found.has(t));
        if (missing.length > 0) return { kind: 'unknown-topics', topics: missing };
      }
      candidates = [];
      for (const t of placement) {
        for (const p of t.partitions) {
          summary.partitions++;
          if (needsElection(request.type, p)) candidates.push({ topic: t.name, partition: p.partition });
          else count(summary, 'not-needed');
        }
      }
    }
    try {
      for (const batch of batches(candidates, ELECTION_BATCH)) {
        const answer = await electLeaders(this.kafka, request.type, batch);
        for (const a of answer.partitions) {
          const outcome = outcomeOf(a.errorCode);
          count(summary, outcome);
          results.push({
            topic: a.topic,
            partition: a.partition,
            outcome,
            ...(a.errorCode !== 0 && { kafkaError: kafkaErrorInfo(a.errorCode, a.errorMessage) }),
          });
        }
      }
    } catch (err) {
      if (err instanceof KafkaRequestError) return { kind: 'kafka-error', error: err.kafka, failure: err.kind, partial: summary };
      throw err;
    }
    results.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    return { kind: 'ok', type: request.type, scope: scope.kind, summary, results };
  }
}
