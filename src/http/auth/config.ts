// Authentication settings from the environment, and THE rule about running without
// authentication: only the embedded demo does so by default. Pointed at a real cluster
// (KAFKA_BOOTSTRAP_SERVERS set), the gateway refuses to start without credentials
// configured unless GATEWAY_AUTH=none says so explicitly.
//
//   GATEWAY_AUTH                 "none" (no authentication) or "required"; default:
//                                required when a credential source is configured or
//                                Kafka is external, none for the embedded demo
//   GATEWAY_TOKENS_FILE          YAML/JSON list of {name, role, sha256}
//   GATEWAY_TOKENS               the same inline (JSON list or name:role:sha256,...)
//   GATEWAY_TLS_CERT_FILE        serve HTTPS with this certificate (PEM) ...
//   GATEWAY_TLS_KEY_FILE         ... and key (PEM)
//   GATEWAY_TLS_CLIENT_CA_FILE   request client certificates verified by this CA (mTLS)
//   GATEWAY_TLS_CLIENT_ROLES     cn-or-san=role,... for verified client certificates
//   GATEWAY_OIDC_*               JWTs from an OIDC identity provider (src/http/auth/oidc-config.ts)
import { readFileSync } from 'node:fs';
import type { Env } from '../../env.js';
import type { AccessControlOptions } from './access-control.js';
import { parseClientCertRoles, type ClientCertRule } from './client-cert.js';
import { OidcVerifier } from './oidc.js';
import { parseOidcConfig } from './oidc-config.js';
import { checkUnique, parseTokenDocument, parseTokenEnv, TokenStore, type TokenEntry } from './tokens.js';

export interface HttpsConfig {
  cert: Buffer;
  key: Buffer;
  /** Set with mTLS: client certificates are requested and verified against it. */
  clientCa?: Buffer;
}

export interface AuthConfig {
  access: AccessControlOptions;
  https: HttpsConfig | null;
  /** Startup lines for the log: what is enforced, and loud warnings when nothing is. */
  notices: { level: 'info' | 'warn'; msg: string; fields?: Record<string, unknown> }[];
}

export interface AuthConfigContext {
  /** KAFKA_BOOTSTRAP_SERVERS is set: a real cluster, not the embedded demo. */
  externalKafka: boolean;
  readFile?: (path: string) => Buffer;
}

function get(env: Env, key: string): string | undefined {
  const v = env[key]?.trim();
  return v ? v : undefined;
}

export function loadAuthConfig(env: Env, ctx: AuthConfigContext): AuthConfig {
  const readFile = ctx.readFile ?? ((p: string) => readFileSync(p));
  const problems: string[] = [];
  const read = (key: string, path: string): Buffer | undefined => {
    try {
      return readFile(path);
    } catch (e) {
      problems.push(`${key}: cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      return undefined;
    }
  };

  const rawMode = get(env, 'GATEWAY_AUTH')?.toLowerCase();
  if (rawMode !== undefined && rawMode !== 'none' && rawMode !== 'required') {
    problems.push(`GATEWAY_AUTH must be "none" or "required", got "${rawMode}"`);
  }

  // Tokens
  const entries: TokenEntry[] = [];
  const tokensFile = get(env, 'GATEWAY_TOKENS_FILE');
  if (tokensFile) {
    const text = read('GATEWAY_TOKENS_FILE', tokensFile);
    if (text) {
      try {
        entries.push(...parseTokenDocument(text.toString('utf8'), 'GATEWAY_TOKENS_FILE'));
      } catch (e) {
        problems.push((e as Error).message);
      }
    }
  }
  const tokensEnv = get(env, 'GATEWAY_TOKENS');
  if (tokensEnv) {
    try {
      entries.push(...parseTokenEnv(tokensEnv));
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  problems.push(...checkUnique(entries));

  // HTTPS and mTLS
  const certFile = get(env, 'GATEWAY_TLS_CERT_FILE');
  const keyFile = get(env, 'GATEWAY_TLS_KEY_FILE');
  const clientCaFile = get(env, 'GATEWAY_TLS_CLIENT_CA_FILE');
  let clientCertRoles: ClientCertRule[] = [];
  try {
    clientCertRoles = parseClientCertRoles(env.GATEWAY_TLS_CLIENT_ROLES);
  } catch (e) {
    problems.push((e as Error).message);
  }
  let https: HttpsConfig | null = null;
  if ((certFile === undefined) !== (keyFile === undefined))
    problems.push('GATEWAY_TLS_CERT_FILE and GATEWAY_TLS_KEY_FILE must be set together');
  if (clientCaFile && !certFile)
    problems.push('GATEWAY_TLS_CLIENT_CA_FILE needs GATEWAY_TLS_CERT_FILE and GATEWAY_TLS_KEY_FILE (mTLS runs on HTTPS)');
  if (clientCertRoles.length > 0 && !clientCaFile) problems.push('GATEWAY_TLS_CLIENT_ROLES needs GATEWAY_TLS_CLIENT_CA_FILE');
  if (clientCaFile && clientCertRoles.length === 0)
    problems.push('GATEWAY_TLS_CLIENT_CA_FILE is set but GATEWAY_TLS_CLIENT_ROLES maps no certificate to a role');
  if (certFile && keyFile) {
    const cert = read('GATEWAY_TLS_CERT_FILE', certFile);
    const key = read('GATEWAY_TLS_KEY_FILE', keyFile);
    const clientCa = clientCaFile ? read('GATEWAY_TLS_CLIENT_CA_FILE', clientCaFile) : undefined;
    if (cert && key) https = { cert, key, ...(clientCa && { clientCa }) };
  }

  // OIDC: any GATEWAY_OIDC_* variable turns it on; no network until the first token (or warmUp).
  const oidcConfig = parseOidcConfig(env, problems);
  const oidc = oidcConfig ? new OidcVerifier(oidcConfig) : undefined;

  const hasCredentials = entries.length > 0 || clientCertRoles.length > 0 || oidc !== undefined;
  const notices: AuthConfig['notices'] = [];
  let access: AccessControlOptions = { mode: 'none' };
  if (rawMode === 'none') {
    if (hasCredentials)
      problems.push(
        'GATEWAY_AUTH=none contradicts the tokens / client certificate roles / OIDC issuer configured; remove one or the other',
      );
    notices.push({
      level: 'warn',
      msg: 'AUTHENTICATION DISABLED (GATEWAY_AUTH=none): every caller is admin and can delete topics and move partitions. Use only behind another authenticating proxy.',
      fields: { externalKafka: ctx.externalKafka },
    });
  } else if (hasCredentials) {
    access = { mode: 'enforced', tokens: new TokenStore(entries), clientCertRoles, ...(oidc && { oidc }) };
    notices.push({
      level: 'info',
      msg: 'authentication enabled',
      fields: { tokens: new TokenStore(entries).describe(), clientCertificates: clientCertRoles, ...(oidc && { oidc: oidc.describe() }) },
    });
  } else if (ctx.externalKafka || rawMode === 'required') {
    problems.push(
      'refusing to start without authentication' +
        (ctx.externalKafka ? ' in front of a real cluster (KAFKA_BOOTSTRAP_SERVERS is set)' : ' (GATEWAY_AUTH=required)') +
        ': configure GATEWAY_TOKENS_FILE or GATEWAY_TOKENS (npm run token:new), GATEWAY_TLS_CLIENT_CA_FILE with GATEWAY_TLS_CLIENT_ROLES, ' +
        'or GATEWAY_OIDC_ISSUER with GATEWAY_OIDC_AUDIENCE, GATEWAY_OIDC_JWKS_URL and GATEWAY_OIDC_ROLE_MAP; ' +
        'or set GATEWAY_AUTH=none to run without authentication (not recommended)',
    );
  } else {
    notices.push({ level: 'warn', msg: 'authentication disabled for the embedded demo cluster: every caller is admin' });
  }

  if (problems.length) throw new Error(`Invalid authentication configuration:\n  - ${problems.join('\n  - ')}`);
  return { access, https, notices };
}
