import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadGatewayConfig } from '../../src/config.js';

it('defaults: port 8080, all interfaces, embedded simulator when KAFKA_BOOTSTRAP_SERVERS is unset', () => {
  const c = loadGatewayConfig({});
  assert.deepEqual([c.port, c.host, c.kafka.mode, c.bodyLimit], [8080, '0.0.0.0', 'embedded', '1mb']);
  assert.equal(loadGatewayConfig({ KAFKA_BOOTSTRAP_SERVERS: '  ' }).kafka.mode, 'embedded');
});

it('KAFKA_BOOTSTRAP_SERVERS set: external cluster with the parsed Kafka config', () => {
  const c = loadGatewayConfig({ PORT: '9000', HOST: '127.0.0.1', KAFKA_BOOTSTRAP_SERVERS: 'k1:9092,k2:9093' });
  assert.equal(c.port, 9000);
  assert.equal(c.host, '127.0.0.1');
  assert.equal(c.kafka.mode, 'external');
  assert.ok(c.kafka.mode === 'external' && c.kafka.config.bootstrapServers.length === 2);
});

it('reports every invalid setting at once', () => {
  assert.throws(
    () => loadGatewayConfig({ PORT: 'eighty', SHUTDOWN_TIMEOUT_MS: '-1', HTTP_BODY_LIMIT: 'lots', KAFKA_BOOTSTRAP_SERVERS: 'nohostport' }),
    (err: Error) => ['PORT', 'SHUTDOWN_TIMEOUT_MS', 'HTTP_BODY_LIMIT', 'KAFKA_BOOTSTRAP_SERVERS'].every((k) => err.message.includes(k)),
  );
});
