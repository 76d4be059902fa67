// The simulator's TLS listener, end to end with the gateway's Kafka layer configured
// from KAFKA_TLS_* variables (certificates generated with openssl at test time):
// server verification against a CA, client certificates (mutual TLS), SASL over TLS
// (SASL_SSL), and refusals - an untrusted server, a missing or untrusted client cert.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig, type Env } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { createTestPki, opensslAvailable, type TestPki } from './tls-certs.js';

const skip = opensslAvailable() ? false : 'openssl is not installed';

async function expectUnavailable(env: Env): Promise<KafkaRequestError> {
  const kafka = createKafkaGateway(parseKafkaConfig({ KAFKA_CONNECT_TIMEOUT_MS: '2000', KAFKA_RETRIES: '0', ...env }));
  try {
    const err = await kafka.listTopics().then(
      () => assert.fail('connected although it should not'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof KafkaRequestError, String(err));
    assert.equal(err.kind, 'unavailable', err.message);
    return err;
  } finally {
    await kafka.close();
  }
}

async function expectWorks(env: Env): Promise<void> {
  const kafka = createKafkaGateway(parseKafkaConfig({ KAFKA_CONNECT_TIMEOUT_MS: '2000', KAFKA_RETRIES: '0', ...env }));
  try {
    const [r] = await kafka.createTopics([{ name: `tls-${Math.random().toString(36).slice(2, 8)}`, partitions: 1, replicationFactor: 1 }]);
    assert.equal(r?.ok, true);
    assert.ok((await kafka.describeCluster()).brokers.length > 0);
  } finally {
    await kafka.close();
  }
}

describe('TLS listener', { skip }, () => {
  let pki: TestPki;
  let sim: Simulator;
  let mtlsSim: Simulator;
  let bootstrap: string;
  let mtlsBootstrap: string;

  before(async () => {
    pki = createTestPki([{ cn: 'gateway' }]);
    sim = await startSimulator({ brokers: 2, tls: { key: pki.server.key, cert: pki.server.cert }, saslScramUsers: { gw: 'gw-secret' } });
    bootstrap = sim.bootstrapServers.join(',');
    mtlsSim = await startSimulator({
      brokers: 1,
      tls: { key: pki.server.key, cert: pki.server.cert, ca: pki.ca.cert, requestCert: true, rejectUnauthorized: true },
    });
    mtlsBootstrap = mtlsSim.bootstrapServers.join(',');
  });
  after(async () => {
    await sim?.close();
    await mtlsSim?.close();
    pki?.cleanup();
  });

  it('SASL_SSL: TLS verified against the CA, then SCRAM-SHA-512', () =>
    expectWorks({
      KAFKA_BOOTSTRAP_SERVERS: bootstrap,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: pki.ca.certFile,
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'gw',
      KAFKA_SASL_PASSWORD: 'gw-secret',
    }));

  it('SASL_SSL with a wrong password: SASL_AUTHENTICATION_FAILED', async () => {
    const err = await expectUnavailable({
      KAFKA_BOOTSTRAP_SERVERS: bootstrap,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: pki.ca.certFile,
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
      KAFKA_SASL_USERNAME: 'gw',
      KAFKA_SASL_PASSWORD: 'nope',
    });
    assert.equal(err.kafka.name, 'SASL_AUTHENTICATION_FAILED');
  });

  it('refuses a broker certificate the configured CA did not sign (no CA file = system roots)', async () => {
    const err = await expectUnavailable({
      KAFKA_BOOTSTRAP_SERVERS: bootstrap,
      KAFKA_TLS: 'true',
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-256',
      KAFKA_SASL_USERNAME: 'gw',
      KAFKA_SASL_PASSWORD: 'gw-secret',
    });
    assert.equal(err.kafka.name, 'NETWORK_EXCEPTION');
  });

  it('a plaintext client cannot talk to a TLS listener', async () => {
    const kafka = createKafkaGateway(
      parseKafkaConfig({
        KAFKA_BOOTSTRAP_SERVERS: bootstrap,
        KAFKA_CONNECT_TIMEOUT_MS: '500',
        KAFKA_REQUEST_TIMEOUT_MS: '500',
        KAFKA_RETRIES: '0',
      }),
    );
    try {
      // The TLS server drops the plaintext bytes: the connection fails or the request times out.
      await assert.rejects(
        kafka.listTopics(),
        (e: unknown) => e instanceof KafkaRequestError && (e.kind === 'unavailable' || e.kind === 'timeout'),
      );
    } finally {
      await kafka.close();
    }
  });

  it('mutual TLS: a client certificate from the CA is accepted', () =>
    expectWorks({
      KAFKA_BOOTSTRAP_SERVERS: mtlsBootstrap,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: pki.ca.certFile,
      KAFKA_TLS_CERT_FILE: pki.clients.gateway.certFile,
      KAFKA_TLS_KEY_FILE: pki.clients.gateway.keyFile,
    }));

  it('mutual TLS: no client certificate, or one from another CA, is refused', async () => {
    await expectUnavailable({ KAFKA_BOOTSTRAP_SERVERS: mtlsBootstrap, KAFKA_TLS: 'true', KAFKA_TLS_CA_FILE: pki.ca.certFile });
    await expectUnavailable({
      KAFKA_BOOTSTRAP_SERVERS: mtlsBootstrap,
      KAFKA_TLS: 'true',
      KAFKA_TLS_CA_FILE: pki.ca.certFile,
      KAFKA_TLS_CERT_FILE: pki.rogueClient.certFile,
      KAFKA_TLS_KEY_FILE: pki.rogueClient.keyFile,
    });
  });
});
