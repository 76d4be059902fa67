// KAFKA_SASL_* for the token mechanisms: OAUTHBEARER (OIDC client credentials or a token file)
// and AWS_MSK_IAM, with Kafka's refresh settings, and every misconfiguration named at start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseKafkaConfig, toClientOptions } from '../../src/kafka/config.js';

const base = { KAFKA_BOOTSTRAP_SERVERS: 'b:9092' };
const oidc = {
  ...base,
  KAFKA_SASL_MECHANISM: 'oauthbearer',
  KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: 'https://idp.example/oauth2/token',
  KAFKA_SASL_OAUTHBEARER_CLIENT_ID: 'gw',
  KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: 'sec',
};
const problems = (env: Record<string, string>): string => {
  try {
    parseKafkaConfig(env);
  } catch (e) {
    return (e as Error).message;
  }
  return 'no problem';
};

describe('OAUTHBEARER configuration', () => {
  it("OIDC client credentials with scope, extensions and Kafka's refresh defaults", () => {
    const c = parseKafkaConfig({
      ...oidc,
      KAFKA_SASL_OAUTHBEARER_SCOPE: 'kafka',
      KAFKA_SASL_OAUTHBEARER_EXTENSIONS: 'logicalCluster=lkc-1, identityPoolId=pool-x',
    });
    assert.deepEqual(c.sasl, {
      mechanism: 'OAUTHBEARER',
      username: 'gw',
      source: { kind: 'oidc', tokenEndpointUrl: 'https://idp.example/oauth2/token', clientId: 'gw', clientSecret: 'sec', scope: 'kafka' },
      extensions: { logicalCluster: 'lkc-1', identityPoolId: 'pool-x' },
      refresh: {
        windowFactor: 0.8,
        windowJitter: 0.05,
        minPeriodSeconds: 60,
        bufferSeconds: 300,
        retryBackoffMs: 100,
        retryBackoffMaxMs: 10000,
        timeoutMs: 10000,
      },
    });
    const sasl = toClientOptions(c).sasl!;
    assert.equal(sasl.mechanism, 'OAUTHBEARER');
    assert.equal(typeof sasl.authenticate, 'function');
    assert.equal(JSON.stringify(sasl).includes('sec'), false, 'no secret in the client options');
  });

  it("a secret file instead of the secret; refresh settings within Kafka's ranges", () => {
    const { KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET: _, ...noSecret } = oidc;
    const c = parseKafkaConfig({
      ...noSecret,
      KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: '/run/secrets/kafka',
      KAFKA_SASL_LOGIN_REFRESH_WINDOW_FACTOR: '0.9',
      KAFKA_SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS: '0',
    });
    assert.equal(
      c.sasl?.mechanism === 'OAUTHBEARER' && c.sasl.source.kind === 'oidc' && c.sasl.source.clientSecretFile,
      '/run/secrets/kafka',
    );
    assert.equal(c.sasl?.mechanism === 'OAUTHBEARER' && c.sasl.refresh.windowFactor, 0.9);
    assert.match(
      problems({ ...oidc, KAFKA_SASL_LOGIN_REFRESH_WINDOW_FACTOR: '0.3' }),
      /KAFKA_SASL_LOGIN_REFRESH_WINDOW_FACTOR must be a number between 0.5 and 1/,
    );
    assert.match(problems({ ...oidc, KAFKA_SASL_LOGIN_REFRESH_WINDOW_JITTER: '0.5' }), /JITTER must be a number between 0 and 0.25/);
  });

  it('a token file, or a file:// token endpoint URL as in Kafka', () => {
    const viaFile = parseKafkaConfig({ ...base, KAFKA_SASL_MECHANISM: 'OAUTHBEARER', KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: '/var/run/token' });
    assert.deepEqual(viaFile.sasl?.mechanism === 'OAUTHBEARER' && viaFile.sasl.source, { kind: 'file', tokenFile: '/var/run/token' });
    const viaUrl = parseKafkaConfig({
      ...base,
      KAFKA_SASL_MECHANISM: 'OAUTHBEARER',
      KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: 'file:///var/run/token',
    });
    assert.deepEqual(viaUrl.sasl?.mechanism === 'OAUTHBEARER' && viaUrl.sasl.source, { kind: 'file', tokenFile: '/var/run/token' });
  });

  it('names every problem', () => {
    assert.match(
      problems({ ...base, KAFKA_SASL_MECHANISM: 'OAUTHBEARER' }),
      /needs KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL .* or KAFKA_SASL_OAUTHBEARER_TOKEN_FILE/,
    );
    const noClient = problems({ ...base, KAFKA_SASL_MECHANISM: 'OAUTHBEARER', KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: 'https://idp/t' });
    assert.match(noClient, /KAFKA_SASL_OAUTHBEARER_CLIENT_ID is required/);
    assert.match(noClient, /exactly one of KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET and KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE/);
    assert.match(problems({ ...oidc, KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE: '/x' }), /exactly one of/);
    assert.match(problems({ ...oidc, KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: '/t' }), /not both/);
    assert.match(
      problems({ ...oidc, KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL: 'ftp://idp/t' }),
      /must be https:\/\/, http:\/\/ or file:\/\//,
    );
    assert.match(problems({ ...oidc, KAFKA_SASL_OAUTHBEARER_EXTENSIONS: 'auth=x' }), /"auth" is not a valid extension name/);
    assert.match(problems({ ...oidc, KAFKA_SASL_OAUTHBEARER_EXTENSIONS: 'pool_id=x' }), /"pool_id" is not a valid extension name/);
    assert.match(problems({ ...oidc, KAFKA_SASL_PASSWORD: 'p' }), /KAFKA_SASL_PASSWORD set but KAFKA_SASL_MECHANISM is OAUTHBEARER/);
    assert.match(
      problems({ ...base, KAFKA_SASL_OAUTHBEARER_CLIENT_ID: 'gw' }),
      /KAFKA_SASL_OAUTHBEARER_CLIENT_ID set but KAFKA_SASL_MECHANISM is not OAUTHBEARER or AWS_MSK_IAM/,
    );
    assert.match(
      problems({
        ...base,
        KAFKA_SASL_MECHANISM: 'PLAIN',
        KAFKA_SASL_USERNAME: 'u',
        KAFKA_SASL_PASSWORD: 'p',
        KAFKA_SASL_AWS_REGION: 'eu-west-1',
      }),
      /KAFKA_SASL_AWS_REGION set but/,
    );
  });
});

describe('AWS_MSK_IAM configuration', () => {
  it('the region from KAFKA_SASL_AWS_REGION, else AWS_REGION; a role to assume', () => {
    const c = parseKafkaConfig({ ...base, KAFKA_SASL_MECHANISM: 'AWS_MSK_IAM', AWS_REGION: 'us-east-2' });
    assert.deepEqual(c.sasl, {
      mechanism: 'AWS_MSK_IAM',
      username: '',
      region: 'us-east-2',
      refresh: (c.sasl as { refresh: unknown }).refresh,
    });
    const r = parseKafkaConfig({
      ...base,
      KAFKA_SASL_MECHANISM: 'AWS_MSK_IAM',
      KAFKA_SASL_AWS_REGION: 'eu-central-1',
      KAFKA_SASL_AWS_ROLE_ARN: 'arn:aws:iam::123456789012:role/gw',
    });
    assert.equal(
      r.sasl?.mechanism === 'AWS_MSK_IAM' && `${r.sasl.region} ${r.sasl.roleArn}`,
      'eu-central-1 arn:aws:iam::123456789012:role/gw',
    );
    assert.equal(toClientOptions(r).sasl?.mechanism, 'OAUTHBEARER', 'MSK IAM is OAUTHBEARER on the wire');
  });

  it('names every problem', () => {
    assert.match(problems({ ...base, KAFKA_SASL_MECHANISM: 'AWS_MSK_IAM' }), /needs KAFKA_SASL_AWS_REGION/);
    assert.match(problems({ ...base, KAFKA_SASL_MECHANISM: 'AWS_MSK_IAM', KAFKA_SASL_AWS_REGION: 'Ireland' }), /not an AWS region/);
    assert.match(
      problems({
        ...base,
        KAFKA_SASL_MECHANISM: 'AWS_MSK_IAM',
        KAFKA_SASL_AWS_REGION: 'eu-west-1',
        KAFKA_SASL_OAUTHBEARER_TOKEN_FILE: '/t',
      }),
      /set but KAFKA_SASL_MECHANISM is AWS_MSK_IAM/,
    );
    assert.match(
      problems({ ...base, KAFKA_SASL_MECHANISM: 'GSSAPI' }),
      /must be one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM/,
    );
  });
});
