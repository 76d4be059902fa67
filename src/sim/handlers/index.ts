// Every API the simulator serves, by key. ApiVersions advertises those the release has (../releases/).
import type { ApiHandler } from './types.js';
import { produceHandler } from './00_produce.js';
import { fetchHandler } from './01_fetch.js';
import { listOffsetsHandler } from './02_list_offsets.js';
import { metadataHandler } from './03_metadata.js';
import { saslHandshakeHandler } from './17_sasl_handshake.js';
import { apiVersionsHandler } from './18_api_versions.js';
import { createTopicsHandler } from './19_create_topics.js';
import { deleteTopicsHandler } from './20_delete_topics.js';
import { describeConfigsHandler } from './32_describe_configs.js';
import { alterConfigsHandler } from './33_alter_configs.js';
import { alterReplicaLogDirsHandler } from './34_alter_replica_log_dirs.js';
import { describeLogDirsHandler } from './35_describe_log_dirs.js';
import { saslAuthenticateHandler } from './36_sasl_authenticate.js';
import { createPartitionsHandler } from './37_create_partitions.js';
import { electLeadersHandler } from './43_elect_leaders.js';
import { incrementalAlterConfigsHandler } from './44_incremental_alter_configs.js';
import { alterPartitionReassignmentsHandler } from './45_alter_partition_reassignments.js';
import { listPartitionReassignmentsHandler } from './46_list_partition_reassignments.js';
import { describeClientQuotasHandler } from './48_describe_client_quotas.js';
import { alterClientQuotasHandler } from './49_alter_client_quotas.js';
import { describeClusterHandler } from './60_describe_cluster.js';
import { describeTopicPartitionsHandler } from './75_describe_topic_partitions.js';

export function allHandlers(): ApiHandler[] {
  const list: ApiHandler[] = [
    produceHandler,
    fetchHandler,
    listOffsetsHandler,
    metadataHandler,
    saslHandshakeHandler,
    createTopicsHandler,
    deleteTopicsHandler,
    describeConfigsHandler,
    alterConfigsHandler,
    alterReplicaLogDirsHandler,
    describeLogDirsHandler,
    saslAuthenticateHandler,
    createPartitionsHandler,
    electLeadersHandler,
    incrementalAlterConfigsHandler,
    alterPartitionReassignmentsHandler,
    listPartitionReassignmentsHandler,
    describeClientQuotasHandler,
    alterClientQuotasHandler,
    describeClusterHandler,
    describeTopicPartitionsHandler,
  ];
  list.push(apiVersionsHandler());
  return list;
}
