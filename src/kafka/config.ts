// Kafka connection settings from the environment.
//
// parseKafkaConfig() is a pure function of an env object: it validates every value and
// throws one Error listing every problem, so a misconfigured gateway fails at startup
// with a readable message. File contents (TLS material) are read later, by
// toClientOptions(), which is also where they are mapped onto @platformatic/kafka's
// options (`tls` is passed verbatim to node:tls.connect, `sasl` is {mechanism, username,
// password}, or for OAUTHBEARER and AWS_MSK_IAM a token source and our RFC 7628 exchange
// (./sasl/); request timeout per connection is `requestTimeout`).
import { readFileSync } from 'node:fs';
import type { ConnectionOptions as TlsConnectionOptions } from 'node:tls';
import type { SASLOptions } from '@platformatic/kafka';
import { envBool, envInt, envString, type Env } from '../env.js';
import { parseTokenSaslConfig, TOKEN_ENV_KEYS, TOKEN_MECHANISMS, type TokenSaslConfig } from './sasl/config.js';
import { createTokenSasl } from './sasl/oauthbearer-client.js';

export type PasswordSaslMechanism = 'PLAIN' | 'SCRAM-SHA-256' | 'SCRAM-SHA-512';
/** AWS_MSK_IAM is SASL OAUTHBEARER on the wire, with a token from AWS's MSK IAM signer. */
export type SaslMechanism = PasswordSaslMechanism | (typeof TOKEN_MECHANISMS)[number];
export const SASL_MECHANISMS: readonly SaslMechanism[] = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', ...TOKEN_MECHANISMS];

export interface BrokerAddress {
  host: string;
  port: number;
}

export interface KafkaTlsConfig {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
  rejectUnauthorized: boolean;
}

export interface PasswordSaslConfig {
  mechanism: PasswordSaslMechanism;
  username: string;
  password: string;
}

export type { TokenSaslConfig };
/** Every variant has `username`: the principal name the gateway assumes for quota lookups. */
export type KafkaSaslConfig = PasswordSaslConfig | TokenSaslConfig;

export interface KafkaConfig {
  bootstrapServers: BrokerAddress[];
  clientId: string;
  /** Client-side timeout of one Kafka request; also sent as the request's timeout_ms. */
  requestTimeoutMs: number;
  connectTimeoutMs: number;
  /** Retries after the first attempt, for retriable failures only (never error 89). */
  retries: number;
  /** First backoff ceiling; doubles per retry up to retryBackoffMaxMs; each wait is jittered (retryDelayMs). */
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
  /** Timeout of ping() (the /readyz probe). */
  pingTimeoutMs: number;
  tls: KafkaTlsConfig | null;
  sasl: KafkaSaslConfig | null;
}

export const DEFAULT_CLIENT_ID = 'kafka-admin-gateway';

export type { Env };

class Problems {
  readonly list: string[] = [];
  add(msg: string): void {
    this.list.push(msg);
  }
}

const get = envString;
const int = (env: Env, key: string, def: number, min: number, p: Problems, max = Number.MAX_SAFE_INTEGER): number =>
  envInt(env, key, def, min, max, p.list);
const bool = (env: Env, key: string, def: boolean, p: Problems): boolean => envBool(env, key, def, p.list);

/** "host:port" or "[ipv6]:port". */
export function parseBrokerAddress(entry: string): BrokerAddress {
  const s = entry.trim();
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(s) ?? /^([^:\s]+):(\d+)$/.exec(s);
  if (!m) throw new Error(`"${entry}" is not host:port`);
  const port = Number(m[2]);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`"${entry}" has an invalid port`);
  return { host: m[1], port };
}

export function parseKafkaConfig(env: Env): KafkaConfig {
  const p = new Problems();

  const bootstrapServers: BrokerAddress[] = [];
  const rawServers = get(env, 'KAFKA_BOOTSTRAP_SERVERS');
  if (rawServers === undefined) {
    p.add('KAFKA_BOOTSTRAP_SERVERS is required (comma-separated host:port list)');
  } else {
    for (const entry of rawServers
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      try {
        bootstrapServers.push(parseBrokerAddress(entry));
      } catch (e) {
        p.add(`KAFKA_BOOTSTRAP_SERVERS: ${(e as Error).message}`);
      }
    }
    if (bootstrapServers.length === 0 && p.list.length === 0) p.add('KAFKA_BOOTSTRAP_SERVERS has no host:port entry');
  }

  const clientId = get(env, 'KAFKA_CLIENT_ID') ?? DEFAULT_CLIENT_ID;
  if (!/^\S+$/.test(clientId)) p.add(`KAFKA_CLIENT_ID must not contain whitespace, got "${clientId}"`);

  const requestTimeoutMs = int(env, 'KAFKA_REQUEST_TIMEOUT_MS', 30000, 1, p, 2 ** 31 - 1);
  const connectTimeoutMs = int(env, 'KAFKA_CONNECT_TIMEOUT_MS', 5000, 1, p, 2 ** 31 - 1);
  const retries = int(env, 'KAFKA_RETRIES', 3, 0, p, 100);
  const retryBackoffMs = int(env, 'KAFKA_RETRY_BACKOFF_MS', 100, 0, p, 600000);
  const retryBackoffMaxMs = int(env, 'KAFKA_RETRY_BACKOFF_MAX_MS', Math.max(1000, retryBackoffMs), 0, p, 600000);
  if (retryBackoffMaxMs < retryBackoffMs) {
    p.add(`KAFKA_RETRY_BACKOFF_MAX_MS (${retryBackoffMaxMs}) must be >= KAFKA_RETRY_BACKOFF_MS (${retryBackoffMs})`);
  }
  const pingTimeoutMs = int(env, 'KAFKA_PING_TIMEOUT_MS', Math.min(3000, requestTimeoutMs), 1, p, 2 ** 31 - 1);

  // TLS
  const tlsEnabled = bool(env, 'KAFKA_TLS', false, p);
  const caFile = get(env, 'KAFKA_TLS_CA_FILE');
  const certFile = get(env, 'KAFKA_TLS_CERT_FILE');
  const keyFile = get(env, 'KAFKA_TLS_KEY_FILE');
  const rejectUnauthorized = bool(env, 'KAFKA_TLS_REJECT_UNAUTHORIZED', true, p);
  let tls: KafkaTlsConfig | null = null;
  if (tlsEnabled) {
    if ((certFile === undefined) !== (keyFile === undefined)) {
      p.add('KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE must be set together (client certificate)');
    }
    tls = { rejectUnauthorized };
    if (caFile !== undefined) tls.caFile = caFile;
    if (certFile !== undefined) tls.certFile = certFile;
    if (keyFile !== undefined) tls.keyFile = keyFile;
  } else {
    const stray = ['KAFKA_TLS_CA_FILE', 'KAFKA_TLS_CERT_FILE', 'KAFKA_TLS_KEY_FILE', 'KAFKA_TLS_REJECT_UNAUTHORIZED'].filter(
      (k) => get(env, k) !== undefined,
    );
    if (stray.length) p.add(`${stray.join(', ')} set but KAFKA_TLS is not true`);
  }

  // SASL
  let sasl: KafkaSaslConfig | null = null;
  const rawMechanism = get(env, 'KAFKA_SASL_MECHANISM');
  const username = env.KAFKA_SASL_USERNAME;
  const password = env.KAFKA_SASL_PASSWORD;
  const mechanism = rawMechanism?.toUpperCase() as SaslMechanism | undefined;
  if (mechanism === 'OAUTHBEARER' || mechanism === 'AWS_MSK_IAM') {
    sasl = parseTokenSaslConfig(env, mechanism, p.list);
  } else if (rawMechanism !== undefined) {
    if (!SASL_MECHANISMS.includes(mechanism!)) {
      p.add(`KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, got "${rawMechanism}"`);
    }
    if (username === undefined || username === '') p.add('KAFKA_SASL_USERNAME is required with KAFKA_SASL_MECHANISM');
    if (password === undefined || password === '') p.add('KAFKA_SASL_PASSWORD is required with KAFKA_SASL_MECHANISM');
    sasl = { mechanism: mechanism as PasswordSaslMechanism, username: username ?? '', password: password ?? '' };
  } else if (get(env, 'KAFKA_SASL_USERNAME') !== undefined || get(env, 'KAFKA_SASL_PASSWORD') !== undefined) {
    p.add('KAFKA_SASL_USERNAME/KAFKA_SASL_PASSWORD set but KAFKA_SASL_MECHANISM is not');
  }
  if (sasl === null || (sasl.mechanism !== 'OAUTHBEARER' && sasl.mechanism !== 'AWS_MSK_IAM')) {
    const stray = TOKEN_ENV_KEYS.filter((k) => get(env, k) !== undefined);
    if (stray.length) p.add(`${stray.join(', ')} set but KAFKA_SASL_MECHANISM is not OAUTHBEARER or AWS_MSK_IAM`);
  }

  if (p.list.length) {
    throw new Error(`Invalid Kafka configuration:\n  - ${p.list.join('\n  - ')}`);
  }
  return {
    bootstrapServers,
    clientId,
    requestTimeoutMs,
    connectTimeoutMs,
    retries,
    retryBackoffMs,
    retryBackoffMaxMs,
    pingTimeoutMs,
    tls,
    sasl,
  };
}

/**
 * Ceiling of the backoff before retry number `retry` (1-based): base * 2^(retry-1), capped at
 * retryBackoffMaxMs. The wait itself is retryDelayMs(), this ceiling with jitter.
 */
export function backoffMs(config: Pick<KafkaConfig, 'retryBackoffMs' | 'retryBackoffMaxMs'>, retry: number): number {
  return Math.min(config.retryBackoffMaxMs, config.retryBackoffMs * 2 ** Math.max(0, retry - 1));
}

/** A source of uniform random numbers in [0, 1), like Math.random (injectable for tests). */
export type RandomSource = () => number;

/**
 * "Equal jitter": a wait drawn uniformly from [ceiling/2, ceiling). Instances that lost the
 * same broker at the same moment spread their retries instead of arriving together, and,
 * unlike full jitter ([0, ceiling)), every wait keeps half its ceiling: the retries are few
 * (KAFKA_RETRIES) and must still outlast a leader or controller election.
 */
export function equalJitter(ceilingMs: number, random: RandomSource = Math.random): number {
  const r = Math.min(Math.max(random(), 0), 1);
  return ceilingMs / 2 + (ceilingMs / 2) * r;
}

/** The wait before retry number `retry` (1-based): backoffMs() with equal jitter. */
export function retryDelayMs(
  config: Pick<KafkaConfig, 'retryBackoffMs' | 'retryBackoffMaxMs'>,
  retry: number,
  random: RandomSource = Math.random,
): number {
  return equalJitter(backoffMs(config, retry), random);
}

/** The subset of @platformatic/kafka's BaseOptions/ConnectionOptions we set. */
export interface ClientOptions {
  clientId: string;
  bootstrapBrokers: BrokerAddress[];
  /** Per-request timeout of a connection (Connection's `requestTimeout`). */
  requestTimeout: number;
  /** Base `timeout`: what the high-level Admin puts in timeout_ms fields. */
  timeout: number;
  connectTimeout: number;
  /** We do our own retries: the client's are off (its default retries error 89). */
  retries: number;
  tls?: TlsConnectionOptions;
  /** PLAIN/SCRAM: {mechanism, username, password}; OAUTHBEARER/AWS_MSK_IAM: a token source (./sasl/). */
  sasl?: SASLOptions;
}

function readTlsFile(key: string, path: string, readFile: (p: string) => Buffer): Buffer {
  try {
    return readFile(path);
  } catch (e) {
    throw new Error(`Invalid Kafka configuration: ${key}: cannot read ${path}: ${(e as Error).message}`);
  }
}

/** Map the config onto @platformatic/kafka client options (reads TLS files). */
export function toClientOptions(config: KafkaConfig, readFile: (p: string) => Buffer = (p) => readFileSync(p)): ClientOptions {
  const opts: ClientOptions = {
    clientId: config.clientId,
    bootstrapBrokers: config.bootstrapServers.map((b) => ({ ...b })),
    requestTimeout: config.requestTimeoutMs,
    timeout: config.requestTimeoutMs,
    connectTimeout: config.connectTimeoutMs,
    retries: 0,
  };
  if (config.tls) {
    const tls: TlsConnectionOptions = { rejectUnauthorized: config.tls.rejectUnauthorized };
    if (config.tls.caFile) tls.ca = readTlsFile('KAFKA_TLS_CA_FILE', config.tls.caFile, readFile);
    if (config.tls.certFile) tls.cert = readTlsFile('KAFKA_TLS_CERT_FILE', config.tls.certFile, readFile);
    if (config.tls.keyFile) tls.key = readTlsFile('KAFKA_TLS_KEY_FILE', config.tls.keyFile, readFile);
    opts.tls = tls;
  }
  if (config.sasl?.mechanism === 'OAUTHBEARER' || config.sasl?.mechanism === 'AWS_MSK_IAM') {
    // One token source per root gateway: every connection it and its derived gateways open (they
    // share these options) authenticates and re-authenticates with the same refreshed token.
    opts.sasl = createTokenSasl(config.sasl).options;
  } else if (config.sasl) {
    opts.sasl = { mechanism: config.sasl.mechanism, username: config.sasl.username, password: config.sasl.password };
  }
  return opts;
}
