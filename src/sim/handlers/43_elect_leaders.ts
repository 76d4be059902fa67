// ElectLeaders (43), v0-v2 (KIP-183; KIP-460 added the election type). A controller request:
// KRaft brokers forward it (KafkaApis: ELECT_LEADERS => maybeForwardToController), and the
// controller answers it (ControllerApis.handleElectLeaders → QuorumController.electLeaders →
// ReplicationControlManager.electLeaders). Kafka 2.8 to 4.2 accept v0-v2 (versions/api-
// versions-by-release.json).
//
// What is decided per partition, with which codes and messages, is ../cluster/elections.ts
// (ReplicationControlManager.electLeader, PartitionChangeBuilder): ELECTION_NOT_NEEDED (84),
// PREFERRED_LEADER_NOT_AVAILABLE (80), ELIGIBLE_LEADERS_NOT_AVAILABLE (83),
// UNKNOWN_TOPIC_OR_PARTITION (3), or 0 with a null message when a leader was elected (its leader
// epoch bumped). topic_partitions null = every partition; the answer then leaves out those that
// needed no election (ReplicationControlManager.electLeaders: "we do not return partitions which
// already have the desired leader"), but lists every topic, even with no partition left.
//
// An election type other than 0 (PREFERRED) or 1 (UNCLEAN) is an InvalidRequestException
// ("Unknown election type N", ReplicationControlManager.electionType), which ControllerApis turns
// into ElectLeadersRequest.getErrorResponse: top-level INVALID_REQUEST (42) and the same error
// for every requested partition (none when topic_partitions is null).
//
// ZooKeeper mode (runtime.notControllerErrors): any broker takes the request
// (KafkaApis.handleElectLeaders → ReplicaManager.electLeaders → KafkaController.electLeaders);
// a broker that is not the controller answers NOT_CONTROLLER (41, null message) for every
// partition (processReplicaLeaderElection: "if (!isActive)"), with top-level 0; with
// topic_partitions null, for every partition of the metadata cache. On the controller the
// decisions are the same; the differences in messages and grouping are in ../cluster/elections.ts.
//
// Not modelled: authorization (ALTER on CLUSTER: 31 at the top level and per partition), the
// timeout (elections here are applied at once), topics being deleted.
//
// Per-version notes:
// - v0: no election_type (always PREFERRED: ElectLeadersRequest.electionType()), and the
//   response has no top-level error_code.
// - v1: election_type (KIP-460), and a top-level error_code in the response.
// - v2: first flexible version (compact strings and arrays, tagged fields); same fields as v1.
import {
  ElectLeadersRequestSchema,
  ElectLeadersResponseSchema,
  type ElectLeadersRequest,
  type ElectLeadersResponse,
} from '../protocol/messages.generated.js';
import { PREFERRED, UNCLEAN, type ElectionTopicResult } from '../cluster/elections.js';
import { notController } from './results.js';
import { defineHandler } from './types.js';
import { HEAVY_ITEMS } from '../request-turns.js';

const INVALID_REQUEST = 42;
const NOT_CONTROLLER = 41;

export const electLeadersHandler = defineHandler<ElectLeadersRequest, ElectLeadersResponse>({
  apiKey: 43,
  name: 'ElectLeaders',
  request: ElectLeadersRequestSchema,
  response: ElectLeadersResponseSchema,
  // Every partition, or many of them (../request-turns.ts).
  heavy: (req) => req.topicPartitions === null || req.topicPartitions.reduce((n, t) => n + t.partitions.length, 0) > HEAVY_ITEMS,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const electionType = ctx.version === 0 ? PREFERRED : (req.electionType ?? PREFERRED);
    const answer = (errorCode: number, results: ElectionTopicResult[]): ElectLeadersResponse => ({
      throttleTimeMs: 0,
      ...(ctx.version >= 1 && { errorCode }),
      replicaElectionResults: results,
    });
    const everyPartition = (errorCode: number, errorMessage: string | null): ElectionTopicResult[] =>
      (req.topicPartitions ?? []).map((t) => ({
        topic: t.topic,
        partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode, errorMessage })),
      }));

    if (ctx.runtime.notControllerErrors) {
      if (notController(ctx)) {
        const all =
          req.topicPartitions ?? model.topicViews().map((t) => ({ topic: t.name, partitions: t.partitions.map((p) => p.partition) }));
        return answer(
          0,
          all
            .filter((t) => t.partitions.length > 0)
            .map((t) => ({
              topic: t.topic,
              partitionResult: t.partitions.map((partitionId) => ({ partitionId, errorCode: NOT_CONTROLLER, errorMessage: null })),
            })),
        );
      }
    }
    if (electionType !== PREFERRED && electionType !== UNCLEAN) {
      return answer(INVALID_REQUEST, everyPartition(INVALID_REQUEST, `Unknown election type ${electionType}`));
    }
    return answer(0, model.electLeaders(req.topicPartitions, electionType, ctx.runtime.notControllerErrors));
  },
});
