import type { Router } from 'express';
import { strictRouter } from '../router.js';
import type { ClusterDescription, ClusterService, KafkaReleaseInfo } from '../../services/cluster.js';
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
    ...(release && {
      kafka: {
        release: release.release,
        mode: release.mode,
        degraded: release.degraded.map((d) => ({ feature: d.feature, detail: d.detail })),
      },
    }),
  };
}

export function clusterRoutes({ cluster: service }: { cluster: ClusterService }): Router {
  const router = strictRouter();
  router.get('/cluster', async (_req, res) => {
    const { cluster, release } = await service.describe();
    res.json(toCluster(cluster, release));
  });
  return router;
}
