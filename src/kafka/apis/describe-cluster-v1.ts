// DescribeCluster v1, sent to any broker: the cluster id, the controller and the brokers
// (which the transport learns its routes from). Older brokers that do not know it
// (UNSUPPORTED_VERSION) are asked with Metadata v12, which carries the same facts.
/*
  DescribeCluster Request (Version: 1) => include_cluster_authorized_operations endpoint_type TAG_BUFFER
    include_cluster_authorized_operations => BOOLEAN
    endpoint_type => INT8

  DescribeCluster Response (Version: 1) => throttle_time_ms error_code error_message endpoint_type cluster_id controller_id [brokers] cluster_authorized_operations TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    error_message => COMPACT_NULLABLE_STRING
    endpoint_type => INT8
    cluster_id => COMPACT_STRING
    controller_id => INT32
    brokers => broker_id host port rack TAG_BUFFER
      broker_id => INT32
      host => COMPACT_STRING
      port => INT32
      rack => COMPACT_NULLABLE_STRING
    cluster_authorized_operations => INT32
*/
import { describeClusterV1 } from '@platformatic/kafka';
import { ERROR_CODES, toKafkaRequestError } from '../errors-map.js';
import type { Transport } from '../request.js';
import type { ClusterDescription } from '../types.js';

type DescribeClusterResponse = Awaited<ReturnType<typeof describeClusterV1.api.async>>;

export async function describeCluster(kafka: Transport): Promise<ClusterDescription> {
  return kafka.withRetry('DescribeCluster', async () => {
    let res: DescribeClusterResponse;
    try {
      res = await kafka.send('DescribeCluster', 'any', (conn) => describeClusterV1.api.async(conn, false, 1));
    } catch (err) {
      const e = toKafkaRequestError(err);
      if (e.kind !== 'kafka' || e.kafka.code !== ERROR_CODES.UNSUPPORTED_VERSION) throw err;
      // Older brokers: Metadata carries the same facts.
      const md = await kafka.metadata([]);
      return {
        clusterId: md.clusterId ?? null,
        controllerId: md.controllerId,
        brokers: md.brokers
          .map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null }))
          .sort((a, b) => a.id - b.id),
      };
    }
    kafka.learnBrokers(
      res.brokers.map((b) => ({ id: b.brokerId, host: b.host, port: b.port })),
      res.controllerId,
    );
    return {
      clusterId: res.clusterId || null,
      controllerId: res.controllerId,
      brokers: res.brokers
        .map((b) => ({ id: b.brokerId, host: b.host, port: b.port, rack: b.rack ?? null }))
        .sort((a, b) => a.id - b.id),
    };
  });
}
