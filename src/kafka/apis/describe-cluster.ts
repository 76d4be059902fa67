// DescribeCluster v0-v1 (the version negotiated with the broker, ./versions.ts; Kafka 2.8-3.6
// accept v0, 3.7+ v1), sent to any broker: the cluster id, the controller and the brokers
// (which the transport learns its routes from). A broker without it (none from 2.8 on; the
// negotiation answers UNSUPPORTED_VERSION without sending anything) is asked with Metadata,
// which carries the same facts.
// v0 has no endpoint_type (request or response: KIP-919 added it in v1 for asking controllers
// directly); the gateway asks brokers (1) and reads no more than v0 has. v1 in full:
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
import { describeClusterV0, describeClusterV1 } from '@platformatic/kafka';
import { ERROR_CODES, toKafkaRequestError } from '../errors-map.js';
import type { Transport } from '../request.js';
import type { ClusterDescription } from '../types.js';
import { GATEWAY_APIS, pick } from './versions.js';

const DESCRIBE_CLUSTER_BY_VERSION = { 0: describeClusterV0, 1: describeClusterV1 };

type DescribeClusterResponse = Awaited<ReturnType<typeof describeClusterV1.api.async>>;

export async function describeCluster(kafka: Transport): Promise<ClusterDescription> {
  return kafka.withRetry('DescribeCluster', async () => {
    let res: DescribeClusterResponse;
    try {
      res = await kafka.send('DescribeCluster', 'any', async (conn) => (await pick(conn, GATEWAY_APIS.DescribeCluster, DESCRIBE_CLUSTER_BY_VERSION)).module.api.async(conn, false, 1));
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
