// DescribeCluster (60), v0-v1.
//
// Cluster id, the active controller and every live broker with its rack. v1 adds
// endpoint_type: 1 = brokers (the only kind a client may ask a broker for; 2 =
// controllers → UNSUPPORTED_ENDPOINT_TYPE (119) from a broker).
import { DescribeClusterRequestSchema, DescribeClusterResponseSchema, type DescribeClusterRequest, type DescribeClusterResponse } from '../protocol/messages.generated.js';
import { AUTHORIZED_OPERATIONS_OMITTED } from './results.js';
import { defineHandler } from './types.js';

export const describeClusterHandler = defineHandler<DescribeClusterRequest, DescribeClusterResponse>({
  apiKey: 60,
  name: 'DescribeCluster',
  request: DescribeClusterRequestSchema,
  response: DescribeClusterResponseSchema,
  handle(ctx, req) {
    const { model } = ctx.runtime;
    const base = { throttleTimeMs: 0, endpointType: req.endpointType ?? 1, clusterId: model.clusterId, clusterAuthorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    if ((req.endpointType ?? 1) !== 1) {
      return { ...base, errorCode: 119, errorMessage: 'The request was sent to an endpoint of the wrong type.', controllerId: -1, brokers: [] };
    }
    return {
      ...base,
      errorCode: 0,
      errorMessage: null,
      controllerId: model.controllerId,
      brokers: ctx.runtime.endpoints().filter((e) => e.up).map((e) => ({ brokerId: e.id, host: e.host, port: e.port, rack: e.rack })),
    };
  },
});
