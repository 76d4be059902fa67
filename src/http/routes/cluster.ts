import type { Router } from 'express';
import { strictRouter } from '../router.js';
import type { ClusterDescription, KafkaGateway } from '../../kafka/types.js';
import type { KafkaReleaseInfo } from '../../domain/kafka-release.js';
import type { components } from '../openapi-types.js';

type Cluster = components['schemas']['Cluster'];

/**
 * Copies field by field instead of passing the Kafka layer's object through: the API
 * shape is openapi.yaml's, and an extra field from below must not leak into responses.
 */
export function toCluster(c: ClusterDescription, release?: KafkaReleaseInfo): Cluster {
  return {
    clusterId: c.clusterId,
    controllerId: c.controllerId,
    brokers: [...c.brokers].sort((a, b) => a.id - b.id).map((b) => ({ id: b.id, host: b.host, port: b.port, rack: b.rack })),
    ...(release && { kafka: { release: release.release, mode: release.mode, degraded: release.degraded.map((d) => ({ feature: d.feature, detail: d.detail })) } }),
  };
}

export function clusterRoutes({ kafka }: { kafka: KafkaGateway }): Router {
  const router = strictRouter();
  router.get('/cluster', async (_req, res) => {
    // The release from any broker's ApiVersions answer (kept per connection: no extra round trip once connected).
    const [cluster, release] = await Promise.all([kafka.describeCluster(), kafka.kafkaRelease?.()]);
    res.json(toCluster(cluster, release));
  });
  return router;
}
