// SASL settings for token mechanisms (OAUTHBEARER from an OIDC token endpoint or a token file,
// and AWS MSK IAM, which is OAUTHBEARER carrying a SigV4-presigned URL), parsed from the
// environment. Pure: files (client secret, token) are only named here and read when a token is
// fetched, so a rotated file is picked up at the next refresh.
//
// Names follow Kafka's client configs (KIP-768, KIP-255, KIP-342) in the gateway's env style:
//   sasl.oauthbearer.token.endpoint.url  -> KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL
//                                           (a file:// URL reads the token from that file, as in Kafka)
//   JAAS clientId / clientSecret / scope -> KAFKA_SASL_OAUTHBEARER_CLIENT_ID, _CLIENT_SECRET(_FILE), _SCOPE
//   JAAS extension_<name>=<value>        -> KAFKA_SASL_OAUTHBEARER_EXTENSIONS="name=value,name2=value2"
//   sasl.login.refresh.window.factor     -> KAFKA_SASL_LOGIN_REFRESH_WINDOW_FACTOR  (0.8, 0.5-1.0)
//   sasl.login.refresh.window.jitter     -> KAFKA_SASL_LOGIN_REFRESH_WINDOW_JITTER  (0.05, 0-0.25)
//   sasl.login.refresh.min.period.seconds-> KAFKA_SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS (60, 0-900)
//   sasl.login.refresh.buffer.seconds    -> KAFKA_SASL_LOGIN_REFRESH_BUFFER_SECONDS (300, 0-3600)
//   sasl.login.retry.backoff.ms / .max.ms-> KAFKA_SASL_LOGIN_RETRY_BACKOFF_MS (100) / _MAX_MS (10000)
//   sasl.login.read.timeout.ms           -> KAFKA_SASL_LOGIN_TIMEOUT_MS (10000: one token request)
import { envInt, envString, type Env } from '../../env.js';

export interface TokenRefreshConfig {
  windowFactor: number;
  windowJitter: number;
  minPeriodSeconds: number;
  bufferSeconds: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  timeoutMs: number;
}

export type OAuthBearerTokenSource =
  | { kind: 'oidc'; tokenEndpointUrl: string; clientId: string; clientSecret?: string; clientSecretFile?: string; scope?: string }
  | { kind: 'file'; tokenFile: string };

export interface OAuthBearerSaslConfig {
  mechanism: 'OAUTHBEARER';
  /** The principal name the gateway assumes for quota lookups (KAFKA_SASL_USERNAME, else the client id, else ''). */
  username: string;
  source: OAuthBearerTokenSource;
  /** KIP-342 SASL extensions sent with every token (e.g. Confluent Cloud's logicalCluster, identityPoolId). */
  extensions: Record<string, string>;
  refresh: TokenRefreshConfig;
}

export interface AwsMskIamSaslConfig {
  mechanism: 'AWS_MSK_IAM';
  username: string;
  region: string;
  /** Assume this role (STS) instead of using the default credential chain's identity. */
  roleArn?: string;
  roleSessionName?: string;
  refresh: TokenRefreshConfig;
}

export type TokenSaslConfig = OAuthBearerSaslConfig | AwsMskIamSaslConfig;
export const TOKEN_MECHANISMS = ['OAUTHBEARER', 'AWS_MSK_IAM'] as const;

/** Every variable this module reads: set without a token mechanism, they are a configuration error. */
export const TOKEN_ENV_KEYS = [
  'KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL',
  'KAFKA_SASL_OAUTHBEARER_CLIENT_ID',
  'KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET',
  'KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE',
  'KAFKA_SASL_OAUTHBEARER_SCOPE',
  'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE',
  'KAFKA_SASL_OAUTHBEARER_EXTENSIONS',
  'KAFKA_SASL_AWS_REGION',
  'KAFKA_SASL_AWS_ROLE_ARN',
  'KAFKA_SASL_AWS_ROLE_SESSION_NAME',
] as const;

/** A number in [min, max] (decimals allowed); the default when unset. */
function envFloat(env: Env, key: string, def: number, min: number, max: number, problems: string[]): number {
  const raw = envString(env, key);
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || n < min || n > max) {
    problems.push(`${key} must be a number between ${min} and ${max}, got "${raw}"`);
    return def;
  }
  return n;
}

export function parseTokenRefreshConfig(env: Env, problems: string[]): TokenRefreshConfig {
  const retryBackoffMs = envInt(env, 'KAFKA_SASL_LOGIN_RETRY_BACKOFF_MS', 100, 1, 600000, problems);
  const retryBackoffMaxMs = envInt(env, 'KAFKA_SASL_LOGIN_RETRY_BACKOFF_MAX_MS', Math.max(10000, retryBackoffMs), 1, 600000, problems);
  if (retryBackoffMaxMs < retryBackoffMs)
    problems.push('KAFKA_SASL_LOGIN_RETRY_BACKOFF_MAX_MS must be >= KAFKA_SASL_LOGIN_RETRY_BACKOFF_MS');
  return {
    // Kafka's ranges (SaslConfigs): factor 0.5-1.0, jitter 0-0.25, min period 0-900 s, buffer 0-3600 s.
    windowFactor: envFloat(env, 'KAFKA_SASL_LOGIN_REFRESH_WINDOW_FACTOR', 0.8, 0.5, 1, problems),
    windowJitter: envFloat(env, 'KAFKA_SASL_LOGIN_REFRESH_WINDOW_JITTER', 0.05, 0, 0.25, problems),
    minPeriodSeconds: envInt(env, 'KAFKA_SASL_LOGIN_REFRESH_MIN_PERIOD_SECONDS', 60, 0, 900, problems),
    bufferSeconds: envInt(env, 'KAFKA_SASL_LOGIN_REFRESH_BUFFER_SECONDS', 300, 0, 3600, problems),
    retryBackoffMs,
    retryBackoffMaxMs,
    timeoutMs: envInt(env, 'KAFKA_SASL_LOGIN_TIMEOUT_MS', 10000, 1, 600000, problems),
  };
}

/**
 * KIP-342 extensions, "name=value,name=value". Kafka's SaslExtensions rules: names are letters
 * only and "auth" is reserved; values are printable ASCII (no control-A, the separator).
 */
export function parseExtensions(raw: string | undefined, problems: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  for (const pair of raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const eq = pair.indexOf('=');
    const name = eq < 0 ? pair : pair.slice(0, eq).trim();
    const value = eq < 0 ? '' : pair.slice(eq + 1).trim();
    if (!/^[A-Za-z]+$/.test(name) || name === 'auth') {
      problems.push(`KAFKA_SASL_OAUTHBEARER_EXTENSIONS: "${name}" is not a valid extension name (letters only, not "auth")`);
    } else if (!/^[\x21-\x7E \t\r\n]+$/.test(value)) {
      problems.push(`KAFKA_SASL_OAUTHBEARER_EXTENSIONS: extension "${name}" needs a printable ASCII value`);
    } else {
      out[name] = value;
    }
  }
  return out;
}

function parseOAuthBearer(env: Env, refresh: TokenRefreshConfig, problems: string[]): OAuthBearerSaslConfig {
  const endpoint = envString(env, 'KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL');
  const tokenFileEnv = envString(env, 'KAFKA_SASL_OAUTHBEARER_TOKEN_FILE');
  const clientId = envString(env, 'KAFKA_SASL_OAUTHBEARER_CLIENT_ID');
  const clientSecret = env.KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET;
  const clientSecretFile = envString(env, 'KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE');
  const scope = envString(env, 'KAFKA_SASL_OAUTHBEARER_SCOPE');
  const extensions = parseExtensions(envString(env, 'KAFKA_SASL_OAUTHBEARER_EXTENSIONS'), problems);
  const username = envString(env, 'KAFKA_SASL_USERNAME') ?? clientId ?? '';
  let source: OAuthBearerTokenSource = { kind: 'file', tokenFile: '' };

  let tokenFile = tokenFileEnv;
  let url: URL | undefined;
  if (endpoint !== undefined) {
    try {
      url = new URL(endpoint);
    } catch {
      problems.push(`KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL is not a URL: "${endpoint}"`);
    }
  }
  if (url?.protocol === 'file:') {
    if (tokenFile !== undefined)
      problems.push('set KAFKA_SASL_OAUTHBEARER_TOKEN_FILE or a file:// KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, not both');
    tokenFile = decodeURIComponent(url.pathname);
    url = undefined;
  } else if (url !== undefined && url.protocol !== 'https:' && url.protocol !== 'http:') {
    problems.push(`KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL must be https://, http:// or file://, got "${url.protocol}"`);
  }

  if (tokenFile !== undefined) {
    if (url !== undefined) problems.push('set KAFKA_SASL_OAUTHBEARER_TOKEN_FILE or KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL, not both');
    const stray = [
      'KAFKA_SASL_OAUTHBEARER_CLIENT_ID',
      'KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET',
      'KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE',
      'KAFKA_SASL_OAUTHBEARER_SCOPE',
    ].filter((k) => envString(env, k) !== undefined);
    if (stray.length) problems.push(`${stray.join(', ')} set but the token comes from a file (KAFKA_SASL_OAUTHBEARER_TOKEN_FILE)`);
    source = { kind: 'file', tokenFile };
  } else if (url !== undefined) {
    if (clientId === undefined)
      problems.push('KAFKA_SASL_OAUTHBEARER_CLIENT_ID is required with KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL');
    const hasSecret = clientSecret !== undefined && clientSecret !== '';
    if (hasSecret === (clientSecretFile !== undefined)) {
      problems.push(
        'exactly one of KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET and KAFKA_SASL_OAUTHBEARER_CLIENT_SECRET_FILE is required with KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL',
      );
    }
    source = {
      kind: 'oidc',
      tokenEndpointUrl: url.toString(),
      clientId: clientId ?? '',
      ...(hasSecret && { clientSecret }),
      ...(clientSecretFile !== undefined && { clientSecretFile }),
      ...(scope !== undefined && { scope }),
    };
  } else if (endpoint === undefined) {
    problems.push(
      'KAFKA_SASL_MECHANISM=OAUTHBEARER needs KAFKA_SASL_OAUTHBEARER_TOKEN_ENDPOINT_URL (with client id and secret) or KAFKA_SASL_OAUTHBEARER_TOKEN_FILE',
    );
  }
  return { mechanism: 'OAUTHBEARER', username, source, extensions, refresh };
}

function parseAwsMskIam(env: Env, refresh: TokenRefreshConfig, problems: string[]): AwsMskIamSaslConfig {
  const region = envString(env, 'KAFKA_SASL_AWS_REGION') ?? envString(env, 'AWS_REGION') ?? envString(env, 'AWS_DEFAULT_REGION');
  if (region === undefined)
    problems.push("KAFKA_SASL_MECHANISM=AWS_MSK_IAM needs KAFKA_SASL_AWS_REGION (or AWS_REGION): the cluster's region");
  else if (!/^[a-z]{2}(-[a-z]+)+-\d+$/.test(region)) problems.push(`KAFKA_SASL_AWS_REGION is not an AWS region: "${region}"`);
  const roleArn = envString(env, 'KAFKA_SASL_AWS_ROLE_ARN');
  const roleSessionName = envString(env, 'KAFKA_SASL_AWS_ROLE_SESSION_NAME');
  if (roleSessionName !== undefined && roleArn === undefined)
    problems.push('KAFKA_SASL_AWS_ROLE_SESSION_NAME set but KAFKA_SASL_AWS_ROLE_ARN is not');
  const stray = TOKEN_ENV_KEYS.filter((k) => k.startsWith('KAFKA_SASL_OAUTHBEARER_') && envString(env, k) !== undefined);
  if (stray.length) problems.push(`${stray.join(', ')} set but KAFKA_SASL_MECHANISM is AWS_MSK_IAM (the token comes from AWS's signer)`);
  return {
    mechanism: 'AWS_MSK_IAM',
    username: envString(env, 'KAFKA_SASL_USERNAME') ?? '',
    region: region ?? '',
    ...(roleArn !== undefined && { roleArn }),
    ...(roleSessionName !== undefined && { roleSessionName }),
    refresh,
  };
}

/** The settings of a token mechanism; problems are appended to `problems`. */
export function parseTokenSaslConfig(env: Env, mechanism: (typeof TOKEN_MECHANISMS)[number], problems: string[]): TokenSaslConfig {
  if (envString(env, 'KAFKA_SASL_PASSWORD') !== undefined)
    problems.push(`KAFKA_SASL_PASSWORD set but KAFKA_SASL_MECHANISM is ${mechanism} (no password is sent)`);
  const refresh = parseTokenRefreshConfig(env, problems);
  return mechanism === 'OAUTHBEARER' ? parseOAuthBearer(env, refresh, problems) : parseAwsMskIam(env, refresh, problems);
}
