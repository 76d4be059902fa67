// AWS MSK IAM: tokens made by AWS's own signer (aws-msk-iam-sasl-signer-js) with static test
// credentials, checked by the simulator's independent SigV4 verification (src/sim/sasl/msk-iam.ts),
// first directly, then end to end: the gateway with KAFKA_SASL_MECHANISM=AWS_MSK_IAM and the
// credentials in AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY (the default chain's first source).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateAuthTokenFromCredentialsProvider } from 'aws-msk-iam-sasl-signer-js';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { mskTokenSignedAtMs } from '../../src/kafka/sasl/msk-iam.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { verifyMskIamToken, type MskIamOptions } from '../../src/sim/sasl/msk-iam.js';
import type { SaslAuthenticatedEvent } from '../../src/sim/sasl/session.js';

const KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const REGION = 'eu-west-1';

const sign = (creds: { accessKeyId: string; secretAccessKey: string; sessionToken?: string }, region = REGION) =>
  generateAuthTokenFromCredentialsProvider({ region, awsCredentialsProvider: async () => creds });

describe('verifyMskIamToken against the AWS signer', () => {
  const accepted: MskIamOptions = { region: REGION, credentials: { [KEY]: SECRET } };

  it("accepts the signer's token, with or without a session token; expiry is the signing time + X-Amz-Expires", async () => {
    for (const creds of [
      { accessKeyId: KEY, secretAccessKey: SECRET },
      { accessKeyId: KEY, secretAccessKey: SECRET, sessionToken: 'FwoGZXIvYXdzEXAMPLE//+token=' },
    ]) {
      const { token, expiryTime } = await sign(creds);
      const r = verifyMskIamToken(token, accepted, Date.now());
      assert.deepEqual(r, { ok: true, principal: KEY, expiresAtMs: expiryTime });
      assert.equal(expiryTime - mskTokenSignedAtMs(token)!, 900_000);
    }
  });

  it('refuses another secret, another region, a changed parameter, an expired or future token', async () => {
    const { token, expiryTime } = await sign({ accessKeyId: KEY, secretAccessKey: SECRET });
    const reason = (t: string, opts: MskIamOptions = accepted, now = Date.now()) => {
      const r = verifyMskIamToken(t, opts, now);
      return r.ok ? 'accepted' : r.reason;
    };
    assert.equal(reason(token, { region: REGION, credentials: { [KEY]: 'another-secret' } }), 'signature does not match');
    assert.equal(reason(token, { region: REGION, credentials: { AKIAOTHER: SECRET } }), 'unknown access key id');
    assert.match(reason(token, { region: 'us-east-1', credentials: { [KEY]: SECRET } }), /not a presigned URL for kafka\.us-east-1/);
    assert.match(reason((await sign({ accessKeyId: KEY, secretAccessKey: SECRET }, 'us-east-1')).token), /not a presigned URL/);
    const url = new URL(Buffer.from(token, 'base64url').toString());
    url.searchParams.set('X-Amz-Expires', '600');
    assert.equal(reason(Buffer.from(url.toString()).toString('base64url')), 'signature does not match');
    url.searchParams.set('X-Amz-Expires', '900');
    url.searchParams.set('User-Agent', 'changed'); // added after signing by the signer: not signed
    assert.equal(reason(Buffer.from(url.toString()).toString('base64url')), 'accepted');
    assert.equal(reason(token, accepted, expiryTime), 'expired');
    assert.equal(reason(token, accepted, expiryTime - 900_000 - 301_000), 'signed in the future');
    assert.equal(reason('bm90IGEgdXJs'), 'not a base64url-encoded URL');
  });
});

describe('gateway Kafka layer <-> simulator with AWS_MSK_IAM', () => {
  let sim: Simulator;
  const events: SaslAuthenticatedEvent[] = [];
  const saved: Record<string, string | undefined> = {};
  const AWS_ENV = ['AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_PROFILE', 'AWS_REGION'];

  before(async () => {
    for (const k of AWS_ENV) saved[k] = process.env[k];
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    process.env.AWS_ACCESS_KEY_ID = KEY;
    process.env.AWS_SECRET_ACCESS_KEY = SECRET;
    sim = await startSimulator({
      brokers: 2,
      saslOAuthBearer: { awsMskIam: { region: REGION, credentials: { [KEY]: SECRET } } },
      onSaslAuthenticated: (e) => events.push(e),
    });
  });
  after(async () => {
    await sim.close();
    for (const k of AWS_ENV) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });

  const gateway = (region = REGION) =>
    createKafkaGateway(
      parseKafkaConfig({
        KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
        KAFKA_SASL_MECHANISM: 'AWS_MSK_IAM',
        KAFKA_SASL_AWS_REGION: region,
        KAFKA_CONNECT_TIMEOUT_MS: '5000',
        KAFKA_RETRIES: '0',
      }),
    );

  it('authenticates with the default credential chain and runs admin calls', async () => {
    const kafka = gateway();
    try {
      const [created] = await kafka.createTopics([{ name: 'iam-topic', partitions: 1, replicationFactor: 2 }]);
      assert.equal(created?.ok, true);
      assert.ok((await kafka.listTopics()).some((t) => t.name === 'iam-topic'));
      assert.ok(events.length >= 1);
      for (const e of events) {
        assert.equal(e.mechanism, 'OAUTHBEARER');
        assert.equal(e.principal, KEY);
        // The session ends with the token (15 minutes from its signing): KIP-368 re-authentication then.
        assert.ok(e.sessionLifetimeMs > 890_000 && e.sessionLifetimeMs <= 900_000, String(e.sessionLifetimeMs));
      }
    } finally {
      await kafka.close();
    }
  });

  it('a token signed for another region is refused with a clear error', async () => {
    const kafka = gateway('us-east-1');
    try {
      const err = await kafka.ping().then(
        () => assert.fail('authenticated with a token for another region'),
        (e: unknown) => e,
      );
      assert.ok(err instanceof KafkaRequestError, String(err));
      assert.equal(err.kafka.name, 'SASL_AUTHENTICATION_FAILED');
      assert.match(
        err.kafka.message,
        /Kafka refused the OAUTHBEARER token from the AWS MSK IAM signer \(region us-east-1\).*invalid_token/,
      );
      assert.match(sim.saslServer.oauthBearer!.lastRefusal ?? '', /not a presigned URL for kafka\.eu-west-1/);
    } finally {
      await kafka.close();
    }
  });
});
