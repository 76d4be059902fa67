import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { backoffMs, equalJitter, parseKafkaConfig, retryDelayMs, toClientOptions } from '../../src/kafka/config.js';

const base = { KAFKA_BOOTSTRAP_SERVERS: 'k1:9092, k2:9093' };

test('defaults', () => {
  const c = parseKafkaConfig(base);
  assert.deepEqual(c.bootstrapServers, [
    { host: 'k1', port: 9092 },
    { host: 'k2', port: 9093 },
  ]);
  assert.equal(c.clientId, 'kafka-admin-gateway');
  assert.equal(c.requestTimeoutMs, 30000);
  assert.equal(c.connectTimeoutMs, 5000);
  assert.equal(c.retries, 3);
  assert.equal(c.retryBackoffMs, 100);
  assert.equal(c.retryBackoffMaxMs, 1000);
  assert.equal(c.tls, null);
  assert.equal(c.sasl, null);
});

test('explicit values and IPv6 brokers', () => {
  const c = parseKafkaConfig({
    KAFKA_BOOTSTRAP_SERVERS: '[::1]:9092,127.0.0.1:19092',
    KAFKA_CLIENT_ID: 'gw-1',
    KAFKA_REQUEST_TIMEOUT_MS: '5000',
    KAFKA_CONNECT_TIMEOUT_MS: '1500',
    KAFKA_RETRIES: '0',
    KAFKA_RETRY_BACKOFF_MS: '50',
    KAFKA_RETRY_BACKOFF_MAX_MS: '400',
  });
  assert.deepEqual(c.bootstrapServers[0], { host: '::1', port: 9092 });
  assert.equal(c.clientId, 'gw-1');
  assert.equal(c.requestTimeoutMs, 5000);
  assert.equal(c.connectTimeoutMs, 1500);
  assert.equal(c.retries, 0);
  assert.equal(c.retryBackoffMs, 50);
  assert.equal(c.retryBackoffMaxMs, 400);
});

test('backoff is exponential with a cap', () => {
  const c = { retryBackoffMs: 100, retryBackoffMaxMs: 1000 };
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6].map((r) => backoffMs(c, r)),
    [100, 200, 400, 800, 1000, 1000],
  );
});

test('each wait is the backoff with equal jitter: uniform in [ceiling/2, ceiling]', () => {
  const c = { retryBackoffMs: 100, retryBackoffMaxMs: 1000 };
  const retries = [1, 2, 3, 4, 5, 6];
  // The random source's extremes give the bounds; its middle, three quarters of the ceiling.
  assert.deepEqual(
    retries.map((r) => retryDelayMs(c, r, () => 0)),
    [50, 100, 200, 400, 500, 500],
  );
  assert.deepEqual(
    retries.map((r) => retryDelayMs(c, r, () => 1)),
    [100, 200, 400, 800, 1000, 1000],
  );
  assert.deepEqual(
    retries.map((r) => retryDelayMs(c, r, () => 0.5)),
    [75, 150, 300, 600, 750, 750],
  );
  // A deterministic sweep of the source stays inside the bounds and covers them.
  for (const r of retries) {
    const ceiling = backoffMs(c, r);
    const waits = Array.from({ length: 101 }, (_, i) => retryDelayMs(c, r, () => i / 101));
    assert.ok(
      waits.every((w) => w >= ceiling / 2 && w < ceiling),
      `retry ${r}: ${Math.min(...waits)}..${Math.max(...waits)} not in [${ceiling / 2}, ${ceiling})`,
    );
    assert.ok(Math.max(...waits) - Math.min(...waits) > ceiling * 0.49, `retry ${r}: the jitter spreads over half the ceiling`);
  }
  // Math.random by default; a zero backoff stays zero.
  const w = retryDelayMs(c, 3);
  assert.ok(w >= 200 && w <= 400, String(w));
  assert.equal(
    equalJitter(0, () => 0.7),
    0,
  );
});

test('invalid values give one clear error listing every problem', () => {
  assert.throws(() => parseKafkaConfig({}), /KAFKA_BOOTSTRAP_SERVERS is required/);
  assert.throws(() => parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: 'k1' }), /"k1" is not host:port/);
  assert.throws(() => parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: 'k1:70000' }), /invalid port/);
  assert.throws(() => parseKafkaConfig({ KAFKA_BOOTSTRAP_SERVERS: ' , ' }), /no host:port entry/);
  assert.throws(
    () => parseKafkaConfig({ ...base, KAFKA_REQUEST_TIMEOUT_MS: 'abc', KAFKA_RETRIES: '-1', KAFKA_TLS: 'maybe' }),
    (e: Error) =>
      /KAFKA_REQUEST_TIMEOUT_MS/.test(e.message) && /KAFKA_RETRIES/.test(e.message) && /KAFKA_TLS must be true or false/.test(e.message),
  );
  assert.throws(
    () => parseKafkaConfig({ ...base, KAFKA_REQUEST_TIMEOUT_MS: '0' }),
    /KAFKA_REQUEST_TIMEOUT_MS must be an integer between 1 and/,
  );
  assert.throws(
    () => parseKafkaConfig({ ...base, KAFKA_RETRY_BACKOFF_MS: '500', KAFKA_RETRY_BACKOFF_MAX_MS: '100' }),
    /KAFKA_RETRY_BACKOFF_MAX_MS \(100\) must be >= KAFKA_RETRY_BACKOFF_MS \(500\)/,
  );
  assert.throws(() => parseKafkaConfig({ ...base, KAFKA_CLIENT_ID: 'a b' }), /KAFKA_CLIENT_ID/);
});

test('TLS', () => {
  const c = parseKafkaConfig({
    ...base,
    KAFKA_TLS: 'true',
    KAFKA_TLS_CA_FILE: '/ca.pem',
    KAFKA_TLS_CERT_FILE: '/c.pem',
    KAFKA_TLS_KEY_FILE: '/k.pem',
    KAFKA_TLS_REJECT_UNAUTHORIZED: 'false',
  });
  assert.deepEqual(c.tls, { rejectUnauthorized: false, caFile: '/ca.pem', certFile: '/c.pem', keyFile: '/k.pem' });
  const files: Record<string, string> = { '/ca.pem': 'CA', '/c.pem': 'CERT', '/k.pem': 'KEY' };
  const o = toClientOptions(c, (p) => Buffer.from(files[p]));
  assert.equal(o.tls?.rejectUnauthorized, false);
  // Each file is read into a Buffer: its text is what the file held.
  const text = (v: unknown): string => (Buffer.isBuffer(v) ? v.toString('utf8') : typeof v === 'string' ? v : inspect(v));
  assert.equal(text(o.tls?.ca), 'CA');
  assert.equal(text(o.tls?.cert), 'CERT');
  assert.equal(text(o.tls?.key), 'KEY');

  assert.deepEqual(parseKafkaConfig({ ...base, KAFKA_TLS: 'TRUE' }).tls, { rejectUnauthorized: true });
  assert.throws(() => parseKafkaConfig({ ...base, KAFKA_TLS: 'true', KAFKA_TLS_CERT_FILE: '/c.pem' }), /set together/);
  assert.throws(() => parseKafkaConfig({ ...base, KAFKA_TLS_CA_FILE: '/ca.pem' }), /KAFKA_TLS is not true/);
  assert.throws(
    () => toClientOptions(parseKafkaConfig({ ...base, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: '/nonexistent/ca.pem' })),
    /KAFKA_TLS_CA_FILE: cannot read \/nonexistent\/ca.pem/,
  );
});

test('SASL', () => {
  for (const m of ['PLAIN', 'SCRAM-SHA-256', 'scram-sha-512']) {
    const c = parseKafkaConfig({ ...base, KAFKA_SASL_MECHANISM: m, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' });
    assert.deepEqual(c.sasl, { mechanism: m.toUpperCase(), username: 'u', password: 'p' });
    assert.deepEqual(toClientOptions(c).sasl, { mechanism: m.toUpperCase(), username: 'u', password: 'p' });
  }
  assert.throws(
    () => parseKafkaConfig({ ...base, KAFKA_SASL_MECHANISM: 'GSSAPI', KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p' }),
    /KAFKA_SASL_MECHANISM must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512/,
  );
  assert.throws(() => parseKafkaConfig({ ...base, KAFKA_SASL_MECHANISM: 'PLAIN' }), /KAFKA_SASL_USERNAME is required/);
  assert.throws(() => parseKafkaConfig({ ...base, KAFKA_SASL_USERNAME: 'u' }), /KAFKA_SASL_MECHANISM is not/);
});

test('client options: our retries, client retries off, timeouts mapped', () => {
  const o = toClientOptions(parseKafkaConfig({ ...base, KAFKA_REQUEST_TIMEOUT_MS: '1234', KAFKA_CONNECT_TIMEOUT_MS: '99' }));
  assert.equal(o.retries, 0);
  assert.equal(o.requestTimeout, 1234);
  assert.equal(o.timeout, 1234);
  assert.equal(o.connectTimeout, 99);
  assert.equal(o.clientId, 'kafka-admin-gateway');
  assert.equal(o.tls, undefined);
  assert.equal(o.sasl, undefined);
});
