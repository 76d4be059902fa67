// SASL OAUTHBEARER end to end over real TCP: the gateway's Kafka layer (configured from
// KAFKA_SASL_* variables) gets tokens from a loopback OIDC token endpoint (./sasl-test-idp.ts)
// or a token file, and the simulator validates them against that IdP's JWKS as Kafka's KIP-768
// validator does. Re-authentication (KIP-368) is observed on the simulator's side: several
// authentications on one connection, each with a new token, while requests keep succeeding.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import type { SaslAuthenticatedEvent } from '../../src/sim/sasl/session.js';
import type { SimOAuthBearerOptions } from '../../src/sim/sasl/oauthbearer.js';
import { TestIdp } from './sasl-test-idp.js';

const CLIENT = { clientId: 'gateway-client', clientSecret: 's3cret/with:chars' };

async function refusal(p: Promise<unknown>): Promise<KafkaRequestError> {
  const err = await p.then(
    () => assert.fail('authenticated with a token Kafka must refuse'),
    (e: unknown) => e,
  );
  assert.ok(err instanceof KafkaRequestError, String(err));
  return err;
}

describe('OAUTHBEARER from an OIDC token endpoint', () => {
  let idp: TestIdp;
  let sim: Simulator;
  const events: SaslAuthenticatedEvent[] = [];
  let validator: SimOAuthBearerOptions;

  before(async () => {
    idp = await TestIdp.start({ ...CLIENT, audience: 'kafka-broker' });
    validator = { jwksUrl: idp.jwksUrl, expectedAudience: ['kafka-broker'], expectedIssuer: 'https://idp.test' };
    sim = await startSimulator({ brokers: 1, saslOAuthBearer: validator, onSaslAuthenticated: (e) => events.push(e) });
  });
  after(async () => {
    await sim.close();
    await idp.close();
  });

  const env = (extra: Record<string, string> = {}) => ({
    KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
    KAFKA_SASL_MECHANISM: 'OAUTHBEARER',
    KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: idp.tokenUrl,
    KAFKA_SASL_OAUTHBEARER_CLIENT_ID: CLIENT.clientId,
    KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: CLIENT.clientSecret,
    KAFKA_CONNECT_TIMEOUT_MS: '3000',
    KAFKA_PING_TIMEOUT_MS: '5000',
    KAFKA_RETRIES: '0',
    ...extra,
  });

  it('authenticates and runs admin calls; scope and extensions reach the IdP and the broker', async () => {
    events.length = 0;
    const kafka = createKafkaGateway(
      parseKafkaConfig(
        env({
          KAFKA_SASL_OAUTHBEARER_SCOPE: 'kafka.admin',
          KAFKA_SASL_OAUTHBEARER_EXTENSIONS: 'logicalCluster=lkc-1,identityPoolId=pool-2',
        }),
      ),
    );
    try {
      const [created] = await kafka.createTopics([{ name: 'oauth-topic', partitions: 2, replicationFactor: 1 }]);
      assert.equal(created?.ok, true);
      assert.ok((await kafka.listTopics()).some((t) => t.name === 'oauth-topic'));
      assert.equal(idp.issued.at(-1)?.scope, 'kafka.admin');
      const auth = events.find((e) => !e.reauthentication);
      assert.ok(auth, 'the simulator saw an authentication');
      assert.equal(auth.mechanism, 'OAUTHBEARER');
      assert.equal(auth.principal, CLIENT.clientId);
      assert.deepEqual(auth.extensions, { logicalCluster: 'lkc-1', identityPoolId: 'pool-2' });
      // A one-hour token: the broker grants a session up to its exp (KIP-368), about an hour.
      assert.ok(auth.sessionLifetimeMs > 3_500_000 && auth.sessionLifetimeMs <= 3_600_000, String(auth.sessionLifetimeMs));
    } finally {
      await kafka.close();
    }
  });

  it('refreshes the token before expiry and re-authenticates the same connection, dropping no request', async () => {
    events.length = 0;
    idp.lifetimeSeconds = 4;
    const issuedBefore = idp.issued.length;
    const kafka = createKafkaGateway(
      parseKafkaConfig(env({ KAFKA_SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS: '0', KAFKA_SASL_LOGIN_REFRESH_BUFFER_SECONDS: '0' })),
    );
    let calls = 0;
    try {
      // Requests all along, four at a time so some are due while a re-authentication is under way
      // (retries off: a request lost to a re-authentication fails the test), until the broker has
      // seen two re-authentications or the deadline passes.
      const deadline = Date.now() + 20000;
      const reauthenticated = () => events.filter((e) => e.reauthentication).length >= 2;
      const worker = async () => {
        while (!reauthenticated()) {
          assert.ok(Date.now() < deadline, `no second re-authentication within 20 s: ${JSON.stringify(events)}`);
          await kafka.describeCluster();
          calls++;
          await new Promise((r) => setTimeout(r, 2)); // pacing, not synchronisation
        }
      };
      await Promise.all([worker(), worker(), worker(), worker()]);
    } finally {
      await kafka.close();
      idp.lifetimeSeconds = 3600;
    }
    const first = events.filter((e) => !e.reauthentication);
    const reauths = events.filter((e) => e.reauthentication);
    assert.equal(first.length, 1, 'one connection, never re-opened');
    assert.ok(reauths.length >= 2);
    assert.ok(
      reauths.every((e) => e.connection === first[0].connection),
      'the re-authentications are on the first connection',
    );
    // Each authentication carried a token of its own, fetched from the IdP before the last expired.
    const tokens = events.map((e) => e.tokenId);
    assert.equal(new Set(tokens).size, tokens.length, `tokens reused: ${tokens.join(',')}`);
    assert.ok(idp.issued.length - issuedBefore >= 3);
    assert.ok(events.every((e) => e.sessionLifetimeMs > 0 && e.sessionLifetimeMs <= 4000));
    assert.ok(calls > 100, `requests made: ${calls}`);
  });

  it('retries the token endpoint after a transient failure', async () => {
    idp.failNext = 2;
    const failedBefore = idp.failed;
    const kafka = createKafkaGateway(parseKafkaConfig(env()));
    try {
      await kafka.ping();
      assert.equal(idp.failed - failedBefore, 2);
    } finally {
      await kafka.close();
      idp.failNext = 0;
    }
  });

  it('an unreachable token endpoint is named, with the connection error', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const kafka = createKafkaGateway(
      parseKafkaConfig(
        env({ KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: `http://127.0.0.1:${port}/token`, KAFKA_SASL_LOGIN_RETRY_BACKOFF_MS: '1' }),
      ),
    );
    try {
      const err = await refusal(kafka.ping());
      assert.equal(err.kafka.name, 'SASL_AUTHENTICATION_FAILED');
      assert.match(
        err.kafka.message,
        new RegExp(`No OAUTHBEARER token: token endpoint http://127\\.0\\.0\\.1:${port}/token did not answer \\(ECONNREFUSED\\)`),
      );
    } finally {
      await kafka.close();
    }
  });

  it('a token for another audience is refused by the broker with a clear error at start', async () => {
    idp.audience = 'some-other-service';
    const kafka = createKafkaGateway(parseKafkaConfig(env()));
    try {
      const err = await refusal(kafka.listTopics());
      assert.equal(err.kafka.name, 'SASL_AUTHENTICATION_FAILED');
      assert.match(err.kafka.message, /Kafka refused the OAUTHBEARER token from token endpoint http:\/\/127\.0\.0\.1:\d+\/token/);
      assert.match(err.kafka.message, /invalid_token/);
    } finally {
      await kafka.close();
      idp.audience = 'kafka-broker';
    }
  });

  it('an expired token from the IdP is refused before Kafka is asked', async () => {
    idp.expiredBySeconds = 120;
    const kafka = createKafkaGateway(parseKafkaConfig(env()));
    try {
      const err = await refusal(kafka.listTopics());
      assert.equal(err.kafka.name, 'SASL_AUTHENTICATION_FAILED');
      assert.match(err.kafka.message, /the token has expired/);
    } finally {
      await kafka.close();
      idp.expiredBySeconds = 0;
    }
  });

  it('a wrong client secret names the IdP answer, never the secret', async () => {
    const kafka = createKafkaGateway(parseKafkaConfig(env({ KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: 'wrong-secret' })));
    try {
      const err = await refusal(kafka.listTopics());
      assert.match(err.kafka.message, /HTTP 401 \(invalid_client: client authentication failed\)/);
      assert.doesNotMatch(err.kafka.message, /wrong-secret/);
    } finally {
      await kafka.close();
    }
  });

  it("token file mode: re-read at each refresh; a re-authentication carries the file's new token", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauth-file-'));
    const file = join(dir, 'token');
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(file, await idp.sign({ sub: 'file-user', iat: now, exp: now + 3, jti: 'file-1' }));
    events.length = 0;
    const kafka = createKafkaGateway(
      parseKafkaConfig({
        KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
        KAFKA_SASL_MECHANISM: 'OAUTHBEARER',
        KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: file,
        KAFKA_RETRIES: '0',
      }),
    );
    try {
      await kafka.describeCluster();
      assert.equal(events[0]?.tokenId, 'file-1');
      assert.equal(events[0]?.principal, 'file-user');
      // Whoever keeps the file current writes the next token before the first expires.
      const later = Math.floor(Date.now() / 1000);
      writeFileSync(file, await idp.sign({ sub: 'file-user', iat: later, exp: later + 60, jti: 'file-2' }));
      const deadline = Date.now() + 10000;
      while (!events.some((e) => e.reauthentication && e.tokenId === 'file-2')) {
        assert.ok(Date.now() < deadline, `no re-authentication with the file's new token: ${JSON.stringify(events)}`);
        await kafka.describeCluster();
        await new Promise((r) => setTimeout(r, 50)); // pacing, not synchronisation
      }
      assert.equal(events.filter((e) => !e.reauthentication).length, 1);
    } finally {
      await kafka.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a token valid for 60 days: no re-authentication storm (the library's timer would overflow)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauth-file-'));
    const file = join(dir, 'token');
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(file, await idp.sign({ sub: 'file-user', iat: now, exp: now + 60 * 86400, jti: 'long' }));
    events.length = 0;
    const kafka = createKafkaGateway(
      parseKafkaConfig({
        KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
        KAFKA_SASL_MECHANISM: 'OAUTHBEARER',
        KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: file,
        KAFKA_RETRIES: '0',
      }),
    );
    try {
      for (let i = 0; i < 20; i++) {
        await kafka.describeCluster();
        await new Promise((r) => setTimeout(r, 25)); // pacing, not synchronisation
      }
      assert.deepEqual(
        events.map((e) => e.reauthentication),
        [false],
      );
      assert.ok(events[0].sessionLifetimeMs > 59 * 86400_000);
    } finally {
      await kafka.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('token file mode: an expired token in the file is a clear error at start', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'oauth-file-'));
    const file = join(dir, 'token');
    const now = Math.floor(Date.now() / 1000);
    writeFileSync(file, await idp.sign({ sub: 'file-user', iat: now - 600, exp: now - 300 }));
    const kafka = createKafkaGateway(
      parseKafkaConfig({
        KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
        KAFKA_SASL_MECHANISM: 'OAUTHBEARER',
        KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: file,
        KAFKA_RETRIES: '0',
      }),
    );
    try {
      const err = await refusal(kafka.ping());
      assert.match(err.kafka.message, new RegExp(`token file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the token has expired`));
    } finally {
      await kafka.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
