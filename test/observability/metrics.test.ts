import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createMetrics, KAFKA_NO_ERROR } from '../../src/observability/metrics.js';

const valueOf = async (m: ReturnType<typeof createMetrics>, name: string, labels: Record<string, string>): Promise<number | undefined> => {
  const metric = (await m.registry.getMetricsAsJSON()).find((x) => x.name === name);
  const v = (metric?.values as { labels: Record<string, string | number>; value: number; metricName?: string }[] | undefined)?.find(
    (x) =>
      (x.metricName === undefined || x.metricName === name || x.metricName.endsWith('_count')) &&
      Object.entries(labels).every(([k, l]) => x.labels[k] === l),
  );
  return v?.value;
};

it('counts each combination of HTTP labels apart, however often a combination repeats (the label objects are reused)', async () => {
  const m = createMetrics({ defaultMetrics: false });
  for (let i = 0; i < 3; i++) m.observeHttp('GET', '/healthz', 200, 0.001);
  m.observeHttp('GET', '/healthz', 503, 0.002);
  m.observeHttp('GET', '/topics/{topic}', 200, 0.003);
  const total = 'kafka_gateway_http_requests_total';
  assert.equal(await valueOf(m, total, { method: 'GET', route: '/healthz', status: '200' }), 3);
  assert.equal(await valueOf(m, total, { method: 'GET', route: '/healthz', status: '503' }), 1);
  assert.equal(await valueOf(m, total, { method: 'GET', route: '/topics/{topic}', status: '200' }), 1);
  const text = await m.registry.metrics();
  assert.match(text, /kafka_gateway_http_request_duration_seconds_count\{method="GET",route="\/healthz",status="200"\} 3/);
});

it('labels a Kafka request without an error NONE, and one with an error by its name', async () => {
  const m = createMetrics({ defaultMetrics: false });
  m.onKafkaRequest('Metadata', null, 0.001);
  m.onKafkaRequest('Metadata', '', 0.001);
  m.onKafkaRequest('Metadata', 'NOT_CONTROLLER', 0.001);
  const total = 'kafka_gateway_kafka_requests_total';
  assert.equal(await valueOf(m, total, { api: 'Metadata', error: KAFKA_NO_ERROR }), 2);
  assert.equal(await valueOf(m, total, { api: 'Metadata', error: 'NOT_CONTROLLER' }), 1);
  // No third label leaks into the series.
  assert.doesNotMatch(await m.registry.metrics(), /kafka_requests_total\{[^}]*,[^}]*,/);
});
