// OIDC / JWT callers: settings from the environment (see docs/auth-oidc.md for the why).
// Any GATEWAY_OIDC_* variable turns the feature on; then issuer, audience and JWKS URL are
// required, and every problem is reported at startup, with the others of the auth config.
//
//   GATEWAY_OIDC_ISSUER                   the `iss` the tokens carry, exactly
//   GATEWAY_OIDC_AUDIENCE                 accepted `aud` values, comma-separated (one must match)
//   GATEWAY_OIDC_JWKS_URL                 the issuer's key set (https; http only on loopback)
//   GATEWAY_OIDC_ALGORITHMS               accepted `alg` values; default every asymmetric one.
//                                         `none` and HS* (shared-secret) are refused.
//   GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS  skew allowed on exp/nbf; default 30, at most 300
//   GATEWAY_OIDC_ROLES_CLAIM              claim(s) holding role values, comma-separated,
//                                         dotted paths allowed; default `roles`
//   GATEWAY_OIDC_ROLE_MAP                 claim value -> role: `kafka-admins=admin,ops=operator`
//                                         (the last `=` splits) or a JSON object
//   GATEWAY_OIDC_DEFAULT_ROLE             role of a valid token that maps to none; default:
//                                         none (such a token is refused with 403)
//   GATEWAY_OIDC_JWKS_COOLDOWN_MS         least time between two key set fetches (unknown
//                                         kid, or after a failed fetch); default 30000
//   GATEWAY_OIDC_JWKS_TIMEOUT_MS          one key set fetch; default 5000
import { envInt, envString, type Env } from '../../env.js';
import { isRole, ROLES, type Role } from './roles.js';

/** Algorithms with a public verification key: whoever can verify cannot sign. */
export const ASYMMETRIC_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export const OIDC_CLOCK_TOLERANCE_MAX_SECONDS = 300;

export interface OidcConfig {
  issuer: string;
  audiences: string[];
  jwksUrl: URL;
  algorithms: string[];
  clockToleranceSeconds: number;
  roleClaims: string[];
  roleMap: Map<string, Role>;
  defaultRole?: Role;
  jwksCooldownMs: number;
  jwksTimeoutMs: number;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;
const CLAIM_PATH = /^[^\s,]{1,256}$/;

function list(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

function parseJwksUrl(raw: string, problems: string[]): URL | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`GATEWAY_OIDC_JWKS_URL is not a URL: "${raw}"`);
    return undefined;
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && LOOPBACK_HOST.test(url.hostname)) return url;
  // Keys fetched in clear could be swapped by anyone on the path, and then sign as anyone.
  problems.push(`GATEWAY_OIDC_JWKS_URL must be https (http is accepted only on loopback), got "${raw}"`);
  return undefined;
}

function parseAlgorithms(raw: string | undefined, problems: string[]): string[] {
  if (raw === undefined) return [...ASYMMETRIC_ALGORITHMS];
  const algs = list(raw);
  const accepted = ASYMMETRIC_ALGORITHMS as readonly string[];
  for (const alg of algs) {
    if (alg.toLowerCase() === 'none') problems.push('GATEWAY_OIDC_ALGORITHMS: "none" (unsigned tokens) is never accepted');
    else if (/^HS\d+$/i.test(alg)) {
      problems.push(
        `GATEWAY_OIDC_ALGORITHMS: ${alg} is refused: symmetric (shared-secret) algorithms would let anyone holding the key, or a public key mistaken for one, sign tokens`,
      );
    } else if (!accepted.includes(alg))
      problems.push(`GATEWAY_OIDC_ALGORITHMS: unknown algorithm "${alg}"; accepted: ${accepted.join(', ')}`);
  }
  if (algs.length === 0) problems.push('GATEWAY_OIDC_ALGORITHMS lists no algorithm');
  return algs.filter((a) => accepted.includes(a));
}

/** `value=role,...` (the last `=` splits, so values may contain `=`) or a JSON object. */
export function parseRoleMap(raw: string | undefined, problems: string[], source = 'GATEWAY_OIDC_ROLE_MAP'): Map<string, Role> {
  const map = new Map<string, Role>();
  const v = raw?.trim() ?? '';
  if (v === '') return map;
  const add = (value: string, role: unknown, what: string): void => {
    if (value === '' || !isRole(role)) problems.push(`${source}: ${what} is not <claim value>=<${ROLES.join('|')}>`);
    else if (map.has(value)) problems.push(`${source}: "${value}" is mapped twice`);
    else map.set(value, role);
  };
  if (v.startsWith('{')) {
    let doc: unknown;
    try {
      doc = JSON.parse(v);
    } catch (e) {
      problems.push(`${source}: not a JSON object (${(e as Error).message})`);
      return map;
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      problems.push(`${source}: expected a JSON object of claim value -> role`);
    else for (const [value, role] of Object.entries(doc as Record<string, unknown>)) add(value, role, JSON.stringify({ [value]: role }));
    return map;
  }
  for (const item of list(v)) {
    const eq = item.lastIndexOf('=');
    add(eq > 0 ? item.slice(0, eq) : '', eq > 0 ? item.slice(eq + 1) : undefined, `"${item}"`);
  }
  return map;
}

/** The OIDC settings, or null when no GATEWAY_OIDC_* variable is set. Problems are appended. */
export function parseOidcConfig(env: Env, problems: string[]): OidcConfig | null {
  const set = Object.keys(env).filter((k) => k.startsWith('GATEWAY_OIDC_') && envString(env, k) !== undefined);
  if (set.length === 0) return null;
  const before = problems.length;
  const issuer = envString(env, 'GATEWAY_OIDC_ISSUER');
  const audiences = list(env.GATEWAY_OIDC_AUDIENCE);
  const rawJwks = envString(env, 'GATEWAY_OIDC_JWKS_URL');
  const missing = [
    !issuer && 'GATEWAY_OIDC_ISSUER',
    audiences.length === 0 && 'GATEWAY_OIDC_AUDIENCE',
    !rawJwks && 'GATEWAY_OIDC_JWKS_URL',
  ].filter(Boolean);
  if (missing.length) problems.push(`OIDC callers (${set.join(', ')} set) also need ${missing.join(', ')}`);
  if (issuer && /\s/.test(issuer)) problems.push(`GATEWAY_OIDC_ISSUER must not contain whitespace, got "${issuer}"`);
  const jwksUrl = rawJwks ? parseJwksUrl(rawJwks, problems) : undefined;
  const algorithms = parseAlgorithms(envString(env, 'GATEWAY_OIDC_ALGORITHMS'), problems);
  const clockToleranceSeconds = envInt(env, 'GATEWAY_OIDC_CLOCK_TOLERANCE_SECONDS', 30, 0, OIDC_CLOCK_TOLERANCE_MAX_SECONDS, problems);
  const roleClaims = envString(env, 'GATEWAY_OIDC_ROLES_CLAIM') === undefined ? ['roles'] : list(env.GATEWAY_OIDC_ROLES_CLAIM);
  for (const c of roleClaims) if (!CLAIM_PATH.test(c)) problems.push(`GATEWAY_OIDC_ROLES_CLAIM: "${c.slice(0, 40)}" is not a claim path`);
  const roleMap = parseRoleMap(env.GATEWAY_OIDC_ROLE_MAP, problems);
  const rawDefault = envString(env, 'GATEWAY_OIDC_DEFAULT_ROLE');
  if (rawDefault !== undefined && !isRole(rawDefault))
    problems.push(`GATEWAY_OIDC_DEFAULT_ROLE must be one of ${ROLES.join(', ')}, got "${rawDefault}"`);
  const defaultRole = isRole(rawDefault) ? rawDefault : undefined;
  if (roleMap.size === 0 && defaultRole === undefined) {
    problems.push(
      'GATEWAY_OIDC_ROLE_MAP maps no claim value to a role and GATEWAY_OIDC_DEFAULT_ROLE is not set: every token would be refused',
    );
  }
  const jwksCooldownMs = envInt(env, 'GATEWAY_OIDC_JWKS_COOLDOWN_MS', 30_000, 1000, 3_600_000, problems);
  const jwksTimeoutMs = envInt(env, 'GATEWAY_OIDC_JWKS_TIMEOUT_MS', 5000, 100, 60_000, problems);
  if (problems.length > before || !issuer || !jwksUrl) return null;
  return {
    issuer,
    audiences,
    jwksUrl,
    algorithms,
    clockToleranceSeconds,
    roleClaims,
    roleMap,
    ...(defaultRole && { defaultRole }),
    jwksCooldownMs,
    jwksTimeoutMs,
  };
}
