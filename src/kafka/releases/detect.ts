// What Kafka the gateway talks to (issue 29): one broker's ApiVersions answer (the one the
// negotiation keeps per connection, src/kafka/apis/versions.ts), read by the pure
// src/domain/kafka-release.ts against Kafka's table of ranges per release (src/domain/kafka-api-versions-by-release.ts).
import { describeKafka, type KafkaReleaseInfo } from '../../domain/kafka-release.js';
import { brokerApiVersions, GATEWAY_APIS } from '../apis/versions.js';
import type { RequestSender } from '../request.js';
import { API_VERSIONS_BY_RELEASE } from '../../domain/kafka-api-versions-by-release.js';

export type { KafkaReleaseInfo } from '../../domain/kafka-release.js';

/** Release, mode and degraded features of the cluster, from the ApiVersions answer of any broker. */
export async function detectKafkaRelease(kafka: RequestSender): Promise<KafkaReleaseInfo> {
  const answer = await kafka.sendRequest('ApiVersions', 'any', (conn) => brokerApiVersions(conn));
  return describeKafka(
    {
      apis: [...answer.ranges].map(([key, [min, max]]) => ({ key, min, max })),
      supportedFeatures: answer.supportedFeatures,
      finalizedFeatures: answer.finalizedFeatures,
    },
    API_VERSIONS_BY_RELEASE,
    Object.values(GATEWAY_APIS),
  );
}
