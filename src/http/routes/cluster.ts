import type { Router } from 'express';
import { strictRouter } from '../router.js';
import type { ClusterDescription, KafkaGateway } from '../../kafka/types.js';
import type { components } from '../openapi-types.js';

type Cluster = components['schemas']['Cluster'];

/**
 * Copies field by field instead of passing the Kafka layer's object through: the API
 * shape is openapi.yaml's, and an extra field from below must not leak into responses.
 */
export function toCluster(c: ClusterDescription): Cluster {
  return {
    clusterId: c.clusterId,
    controllerId: c.controllerId,
    brokers: [...c.brokers].sort((a, b) => a.id - b.id).map((b) => ({ id: b.id, host: b.host, port: b.port, rack: b.rack })),
  };
}

export function clusterRoutes({ kafka }: { kafka: KafkaGateway }): Router {
  const router = strictRouter();
  router.get('/cluster', async (_req, res) => {
    res.json(toCluster(await kafka.describeCluster()));
  });
  return router;
}
