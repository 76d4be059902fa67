// DescribeCluster (60), v0-v2.
//
// Cluster id, a controller id and every live broker with its rack. As a KRaft broker
// (AuthHelper.computeDescribeClusterResponse): controller_id is a random live broker (the real
// controller only in ZooKeeper mode); v1 adds endpoint_type: 1 = brokers is answered; 2 =
// controllers → MISMATCHED_ENDPOINT_TYPE (114) "The request was sent to an endpoint of type
// BROKER, but we wanted an endpoint of type CONTROLLER"; any other type →
// UNSUPPORTED_ENDPOINT_TYPE (115) "Unsupported endpoint type N" (v0: INVALID_REQUEST for both).
// cluster_authorized_operations: 8096 when include_cluster_authorized_operations asks for them
// (KafkaApis.handleDescribeCluster -> AuthHelper.authorizedOperations on CLUSTER, no
// authorizer: every operation CLUSTER supports), otherwise -2147483648; an error answer keeps
// the default (computeDescribeClusterResponse fails before the operations are set).
// v2 (Kafka 4.0, KIP-1073): include_fenced_brokers asks for the fenced brokers too, each with
// is_fenced (KafkaApis.handleDescribeCluster: the metadata image's brokers, fenced ones only when
// asked). A KRaft controller fences a broker that stops heartbeating but keeps it registered: here
// a stopped broker is such a one. Without the flag (and in v0-v1) only unfenced brokers are listed.

import {
  DescribeClusterRequestSchema,
  DescribeClusterResponseSchema,
  type DescribeClusterRequest,
  type DescribeClusterResponse,
} from '../protocol/messages.generated.js';
import { AUTHORIZED_OPERATIONS_OMITTED, CLUSTER_AUTHORIZED_OPERATIONS } from './results.js';
import { defineHandler } from './types.js';

export const describeClusterHandler = defineHandler<DescribeClusterRequest, DescribeClusterResponse>({
  apiKey: 60,
  name: 'DescribeCluster',
  request: DescribeClusterRequestSchema,
  response: DescribeClusterResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const base = {
      throttleTimeMs: 0,
      endpointType: 1,
      clusterId: model.clusterId,
      clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    };
    const type = req.endpointType ?? 1;
    const withFenced = ctx.version >= 2 && req.includeFencedBrokers === true;
    if (type !== 1) {
      const known = type === 2;
      const errorCode = ctx.version === 0 ? 42 : known ? 114 : 115;
      const errorMessage = known
        ? 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER'
        : `Unsupported endpoint type ${type}`;
      return { ...base, clusterId: '', errorCode, errorMessage, controllerId: -1, brokers: [] };
    }
    return {
      ...base,
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? CLUSTER_AUTHORIZED_OPERATIONS : AUTHORIZED_OPERATIONS_OMITTED,
      errorCode: 0,
      errorMessage: null,
      controllerId: ctx.runtime.reportedControllerId(),
      brokers: ctx.runtime
        .endpoints()
        .filter((e) => e.up || withFenced)
        .map((e) => ({ brokerId: e.id, host: e.host, port: e.port, rack: e.rack, isFenced: !e.up })),
    };
  },
});
