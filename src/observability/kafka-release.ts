// At start (issue 29): say what Kafka the gateway talks to — the log line, the metric
// kafka_gateway_cluster_info{release,mode} = 1, a warning per degraded feature — and refuse a
// cluster below the gateway's floor (Kafka 2.8) with a message naming what was detected. A
// cluster not reachable yet is not refused: the gateway starts and /readyz says it is not ready.
import { Gauge, type Registry } from 'prom-client';
import type { KafkaReleaseInfo } from '../domain/kafka-release.js';
import type { Logger } from './logger.js';

export class KafkaReleaseRefusedError extends Error {
  override readonly name = 'KafkaReleaseRefusedError';
}

export function clusterInfoGauge(registry: Registry): Gauge<'release' | 'mode'> {
  const existing = registry.getSingleMetric('kafka_gateway_cluster_info');
  if (existing) return existing as Gauge<'release' | 'mode'>;
  return new Gauge({
    name: 'kafka_gateway_cluster_info',
    help: 'The Kafka release and mode detected from ApiVersions at start (value 1).',
    labelNames: ['release', 'mode'],
    registers: [registry],
  });
}

/**
 * Detect the release (`detect`: KafkaAdmin.kafkaRelease) and announce it. Throws
 * KafkaReleaseRefusedError below the floor; resolves with null when Kafka did not answer.
 */
export async function announceKafkaRelease(
  detect: () => Promise<KafkaReleaseInfo>,
  logger: Logger,
  registry: Registry,
): Promise<KafkaReleaseInfo | null> {
  let info: KafkaReleaseInfo;
  try {
    info = await detect();
  } catch (err) {
    logger.warn('Kafka release not detected at start (Kafka not reachable?)', { err: err instanceof Error ? err.message : String(err) });
    return null;
  }
  if (info.refused !== null) throw new KafkaReleaseRefusedError(info.refused);
  const gauge = clusterInfoGauge(registry);
  gauge.reset();
  gauge.set({ release: info.release, mode: info.mode }, 1);
  logger.info('kafka release detected', { release: info.release, mode: info.mode, degraded: info.degraded.map((d) => d.feature) });
  for (const d of info.degraded) logger.warn('kafka feature degraded', { feature: d.feature, detail: d.detail });
  return info;
}
