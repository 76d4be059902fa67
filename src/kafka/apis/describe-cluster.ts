// DescribeCluster v0-v2 (the version negotiated with the broker, ./versions.ts; Kafka 2.8-3.6
// accept v0, 3.7-3.9 v1, 4.0+ v2), sent to any broker: the cluster id, the controller and the brokers
// (which the transport learns its routes from). A broker without it (none from 2.8 on; the
// negotiation answers UNSUPPORTED_VERSION without sending anything) is asked with Metadata,
// which carries the same facts.
// What differs (v2 below): v0 has no endpoint_type (request or response: KIP-919 added it in v1
// for asking controllers directly); the gateway asks brokers (1). v2 (KIP-1073) adds
// include_fenced_brokers to the request and is_fenced to each broker: the gateway asks for the
// unfenced brokers only (false), as v0-v1 list them, so every broker listed is unfenced; a fenced
// one (a broker that would not follow the flag) is left out. The client has no v2 module: v2 is
// written and read here (encodeDescribeClusterV2Request, decodeDescribeClusterV2Answer).
/*
  DescribeCluster Request (Version: 2) => include_cluster_authorized_operations endpoint_type include_fenced_brokers TAG_BUFFER
    include_cluster_authorized_operations => BOOLEAN
    endpoint_type => INT8
    include_fenced_brokers => BOOLEAN

  DescribeCluster Response (Version: 2) => throttle_time_ms error_code error_message endpoint_type cluster_id controller_id [brokers] cluster_authorized_operations TAG_BUFFER
    throttle_time_ms => INT32
    error_code => INT16
    error_message => COMPACT_NULLABLE_STRING
    endpoint_type => INT8
    cluster_id => COMPACT_STRING
    controller_id => INT32
    brokers => broker_id host port rack is_fenced TAG_BUFFER
      broker_id => INT32
      host => COMPACT_STRING
      port => INT32
      rack => COMPACT_NULLABLE_STRING
      is_fenced => BOOLEAN
    cluster_authorized_operations => INT32
*/

import { createAPI, describeClusterV0, describeClusterV1 } from '@platformatic/kafka';
import { KafkaRequestError } from '../errors.js';
import { ERROR_CODES, kafkaErrorInfo, toKafkaRequestError } from '../errors-map.js';
import type { Transport } from '../request.js';
import type { ClusterDescription } from '../types.js';
import { WireReader } from '../wire/reader.js';
import { payloadOf, WireWriter } from '../wire/writer.js';
import { GATEWAY_APIS, versionFor } from './versions.js';

type DescribeClusterResponse = Awaited<ReturnType<typeof describeClusterV1.api.async>>;

/** The v2 request body: brokers (endpoint type 1), with or without fenced ones. */
export function encodeDescribeClusterV2Request(includeClusterAuthorizedOperations: boolean, includeFencedBrokers: boolean): Buffer {
  return new WireWriter(4).bool(includeClusterAuthorizedOperations).int8(1).bool(includeFencedBrokers).noTaggedFields().done();
}

/**
 * The v2 answer after its header, in v1's shape: fenced brokers left out (is_fenced read, not
 * kept). A top-level error is thrown as a KafkaRequestError, as the client's parser throws it.
 */
export function decodeDescribeClusterV2Answer(r: WireReader): DescribeClusterResponse {
  const throttleTimeMs = r.int32();
  const errorCode = r.int16();
  const errorMessage = r.compactNullableString();
  const endpointType = r.buf.readInt8(r.pos);
  r.skip(1);
  const clusterId = r.compactString();
  const controllerId = r.int32();
  const brokers: DescribeClusterResponse['brokers'] = [];
  const count = r.compactLength();
  for (let i = 0; i < count; i++) {
    const brokerId = r.int32();
    const host = r.compactString();
    const port = r.int32();
    const rack = r.compactNullableString();
    const isFenced = r.bool();
    r.skipTaggedFields();
    if (!isFenced) brokers.push({ brokerId, host, port, rack });
  }
  const clusterAuthorizedOperations = r.int32();
  r.skipTaggedFields();
  if (errorCode !== 0) throw new KafkaRequestError('kafka', kafkaErrorInfo(errorCode, errorMessage));
  return {
    throttleTimeMs,
    errorCode,
    errorMessage,
    endpointType: endpointType as DescribeClusterResponse['endpointType'],
    clusterId,
    controllerId,
    brokers,
    clusterAuthorizedOperations,
  };
}

const describeClusterV2 = createAPI<[body: Buffer], DescribeClusterResponse>(
  GATEWAY_APIS.DescribeCluster.key,
  2,
  payloadOf,
  (_correlationId, _apiKey, _apiVersion, reader) => decodeDescribeClusterV2Answer(WireReader.fromClientReader(reader)),
);
const DESCRIBE_CLUSTER_V2_BODY = encodeDescribeClusterV2Request(false, false);

/** DescribeCluster at the version negotiated on `conn`: brokers, no authorized operations. */
async function send(conn: Parameters<typeof versionFor>[0]): Promise<DescribeClusterResponse> {
  const version = await versionFor(conn, GATEWAY_APIS.DescribeCluster);
  if (version >= 2) return describeClusterV2.async(conn, DESCRIBE_CLUSTER_V2_BODY);
  return (version === 1 ? describeClusterV1 : describeClusterV0).api.async(conn, false, 1);
}

export async function describeCluster(kafka: Transport): Promise<ClusterDescription> {
  return kafka.withRetry('DescribeCluster', async () => {
    let res: DescribeClusterResponse;
    try {
      res = await kafka.send('DescribeCluster', 'any', send);
    } catch (err) {
      const e = toKafkaRequestError(err);
      if (e.kind !== 'kafka' || e.kafka.code !== ERROR_CODES.UNSUPPORTED_VERSION) throw err;
      // Older brokers: Metadata carries the same facts.
      const md = await kafka.metadata([]);
      return {
        clusterId: md.clusterId ?? null,
        controllerId: md.controllerId,
        brokers: md.brokers.map((b) => ({ id: b.nodeId, host: b.host, port: b.port, rack: b.rack ?? null })).sort((a, b) => a.id - b.id),
      };
    }
    kafka.learnBrokers(
      res.brokers.map((b) => ({ id: b.brokerId, host: b.host, port: b.port })),
      res.controllerId,
    );
    return {
      clusterId: res.clusterId || null,
      controllerId: res.controllerId,
      brokers: res.brokers.map((b) => ({ id: b.brokerId, host: b.host, port: b.port, rack: b.rack ?? null })).sort((a, b) => a.id - b.id),
    };
  });
}
