// OIDC callers: a bearer token that is a JWT signed by the configured identity provider.
// Verification is jose's (jwtVerify over createRemoteJWKSet): signature with one of the
// issuer's published keys, issuer, audience, algorithm, exp/nbf within the clock tolerance.
// Nothing here parses or checks a JWT by hand except the header peek that gives a clear
// answer for `alg: none` and disallowed algorithms before jose refuses them anyway.
//
// Keys: fetched on the first token, cached (re-fetched when older than 10 min), and
// re-fetched when a token names a kid the set lacks (a rotated key) - at most once per
// cooldown, so tokens with made-up kids cannot make the gateway hammer the IdP. When the
// IdP cannot be reached, the last key set fetched (at most an hour old) keeps verifying;
// without one the caller gets 503 (the token may be fine; retry), not 401.
// Design notes: docs/auth-oidc.md.
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeProtectedHeader,
  errors,
  jwksCache,
  jwtVerify,
  type ExportedJWKSCache,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
  type JWTHeaderParameters,
  type JWTPayload,
} from 'jose';
import { roleFromClaims, type ClaimRoleRule } from './claim-roles.js';
import type { OidcConfig } from './oidc-config.js';
import { ROLES, type OidcIdentity, type Principal, type Role } from './roles.js';

/** Three base64url parts (the last empty for `alg: none`), bounded: Node's header limit is 16 KiB. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
export const MAX_JWT_LENGTH = 16 * 1024;

/** Key sets older than this are refreshed on the next token (jose's default). */
export const JWKS_MAX_AGE_MS = 10 * 60_000;
/** While the IdP is unreachable, a key set fetched at most this long ago still verifies. */
export const JWKS_STALE_MAX_MS = 60 * 60_000;
const MAX_SUBJECT_LENGTH = 200;
const MAX_CLIENT_LENGTH = 200;

export function looksLikeJwt(token: string): boolean {
  return token.length <= MAX_JWT_LENGTH && JWT_SHAPE.test(token);
}

export type OidcOutcome =
  | { kind: 'ok'; principal: Principal }
  /** 401: `reason` is a short code for the log line, `description` tells the caller. */
  | { kind: 'invalid'; reason: string; description: string }
  /** 403: a valid token whose claims map to no role (and no default role is configured). */
  | { kind: 'no-role'; id: string; identity: Omit<OidcIdentity, 'roleSource'>; description: string }
  /** 503: the key set could not be fetched and none is cached. */
  | { kind: 'unavailable'; description: string; retryAfterSeconds: number };

/** Thrown by the key resolver when the IdP is unreachable and no recent key set is kept. */
class KeySetUnavailable extends Error {}

/** A failure to obtain the key set (network, timeout, HTTP status, not a JWKS), not a token problem. */
function isFetchFailure(e: unknown): boolean {
  if (e instanceof errors.JWKSTimeout || e instanceof errors.JWKSInvalid) return true;
  // jose's bare JOSEError is what it throws for a non-200 answer or a body that is not JSON.
  if (e instanceof errors.JOSEError) return e.constructor === errors.JOSEError;
  return true; // fetch's TypeError (connection refused, DNS) and anything else from the fetch
}

/** For log lines and messages: never the error's cause chain or a URL with credentials. */
function fetchFailureText(e: unknown): string {
  if (e instanceof errors.JWKSTimeout) return 'timed out';
  const cause = (e as { cause?: { code?: unknown } }).cause;
  const code = typeof cause?.code === 'string' ? ` (${cause.code})` : '';
  return `${(e as Error).message ?? String(e)}${code}`.slice(0, 200);
}

const iso = (epochSeconds: unknown): string =>
  typeof epochSeconds === 'number' && Number.isFinite(epochSeconds) ? new Date(epochSeconds * 1000).toISOString() : 'an invalid time';

export class OidcVerifier {
  readonly #config: OidcConfig;
  readonly #rule: ClaimRoleRule<Role>;
  readonly #cache: ExportedJWKSCache | Record<string, never> = {};
  readonly #remote: ReturnType<typeof createRemoteJWKSet>;
  #failedAt: number | undefined;
  #failure = '';
  #stale: { uat: number; keys: ReturnType<typeof createLocalJWKSet> } | undefined;

  constructor(config: OidcConfig) {
    this.#config = config;
    this.#rule = { claims: config.roleClaims, map: config.roleMap, ...(config.defaultRole && { defaultRole: config.defaultRole }) };
    this.#remote = createRemoteJWKSet(config.jwksUrl, {
      timeoutDuration: config.jwksTimeoutMs,
      cooldownDuration: config.jwksCooldownMs,
      cacheMaxAge: JWKS_MAX_AGE_MS,
      [jwksCache]: this.#cache,
    });
  }

  /** For the startup log line (no secrets here: the keys are public). */
  describe(): Record<string, unknown> {
    const c = this.#config;
    return {
      issuer: c.issuer,
      audiences: c.audiences,
      jwksUrl: `${c.jwksUrl.origin}${c.jwksUrl.pathname}`,
      algorithms: c.algorithms,
      clockToleranceSeconds: c.clockToleranceSeconds,
      roleClaims: c.roleClaims,
      roleMap: Object.fromEntries(c.roleMap),
      defaultRole: c.defaultRole ?? null,
    };
  }

  /** Fetches the key set now (at startup, so a wrong URL shows in the log before the first caller). */
  async warmUp(): Promise<{ keys: number } | { error: string }> {
    try {
      await this.#remote.reload();
      return { keys: this.#remote.jwks()?.keys.length ?? 0 };
    } catch (e) {
      return { error: fetchFailureText(e) };
    }
  }

  /** The key for a token: jose's remote set, or the last one fetched while the IdP is unreachable. */
  readonly #keyFor = async (header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (this.#failedAt !== undefined && Date.now() - this.#failedAt < this.#config.jwksCooldownMs) return this.#staleKey(header, token);
    try {
      const key = await this.#remote(header, token);
      this.#failedAt = undefined;
      return key;
    } catch (e) {
      if (!isFetchFailure(e)) throw e;
      this.#failedAt = Date.now();
      this.#failure = fetchFailureText(e);
      return this.#staleKey(header, token);
    }
  };

  async #staleKey(header: JWTHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> {
    const { uat, jwks } = this.#cache as Partial<ExportedJWKSCache>;
    if (uat === undefined || jwks === undefined || Date.now() - uat > JWKS_STALE_MAX_MS) throw new KeySetUnavailable(this.#failure);
    if (this.#stale?.uat !== uat) this.#stale = { uat, keys: createLocalJWKSet(jwks) };
    return this.#stale.keys(header, token);
  }

  async verify(token: string): Promise<OidcOutcome> {
    const c = this.#config;
    let header: JWSHeaderParameters;
    try {
      header = decodeProtectedHeader(token);
    } catch {
      return { kind: 'invalid', reason: 'malformed', description: 'The token is not a well-formed JWT (its header does not decode).' };
    }
    const alg = header.alg;
    if (typeof alg !== 'string' || alg === '') return { kind: 'invalid', reason: 'malformed', description: 'The token header has no alg.' };
    if (alg.toLowerCase() === 'none')
      return { kind: 'invalid', reason: 'alg-none', description: 'Unsigned tokens (alg "none") are never accepted.' };
    if (!c.algorithms.includes(alg)) {
      const shown = /^[A-Za-z0-9]{1,16}$/.test(alg) ? alg : 'an unknown algorithm';
      return {
        kind: 'invalid',
        reason: 'alg-not-allowed',
        description: `The token is signed with ${shown}, which is not accepted (accepted: ${c.algorithms.join(', ')}).`,
      };
    }
    let payload: JWTPayload;
    try {
      payload = await this.#verifyWithKeys(token);
    } catch (e) {
      return this.#refusal(e);
    }
    return this.#principalFor(payload);
  }

  async #verifyWithKeys(token: string): Promise<JWTPayload> {
    const c = this.#config;
    const options = {
      issuer: c.issuer,
      audience: c.audiences,
      algorithms: c.algorithms,
      clockTolerance: c.clockToleranceSeconds,
      requiredClaims: ['exp', 'sub'],
    };
    try {
      return (await jwtVerify(token, this.#keyFor, options)).payload;
    } catch (e) {
      // Two keys of the set fit the header (no kid, or a reused kid): jose leaves trying each to us.
      if (!(e instanceof errors.JWKSMultipleMatchingKeys)) throw e;
      let last: unknown = e;
      for await (const key of e) {
        try {
          return (await jwtVerify(token, key, options)).payload;
        } catch (inner) {
          last = inner;
          if (!(inner instanceof errors.JWSSignatureVerificationFailed)) break;
        }
      }
      throw last;
    }
  }

  #principalFor(payload: JWTPayload): OidcOutcome {
    const sub = payload.sub;
    if (typeof sub !== 'string' || sub === '' || sub.length > MAX_SUBJECT_LENGTH) {
      return { kind: 'invalid', reason: 'bad-subject', description: `The token's sub claim must be 1-${MAX_SUBJECT_LENGTH} characters.` };
    }
    const rawClient = typeof payload.azp === 'string' ? payload.azp : typeof payload.client_id === 'string' ? payload.client_id : undefined;
    const client = rawClient && rawClient.length <= MAX_CLIENT_LENGTH ? rawClient : undefined;
    // The stable caller name: audit lines, quota budgets and Kafka client ids key by it.
    const id = `oidc:${sub}`;
    const identity = { issuer: this.#config.issuer, subject: sub, ...(client && { client }) };
    const decision = roleFromClaims(payload, this.#rule, ROLES);
    if (decision.role === undefined) {
      return {
        kind: 'no-role',
        id,
        identity,
        description:
          `The token of ${id} is valid, but no value of its ${this.#config.roleClaims.join(', ')} claim is mapped to a role ` +
          '(GATEWAY_OIDC_ROLE_MAP) and no default role is configured (GATEWAY_OIDC_DEFAULT_ROLE).',
      };
    }
    return { kind: 'ok', principal: { id, role: decision.role, oidc: { ...identity, roleSource: decision.source } } };
  }

  #refusal(e: unknown): OidcOutcome {
    const c = this.#config;
    const tolerance = `clock tolerance ${c.clockToleranceSeconds} s`;
    const invalid = (reason: string, description: string): OidcOutcome => ({ kind: 'invalid', reason, description });
    if (e instanceof KeySetUnavailable) {
      return {
        kind: 'unavailable',
        description: `The identity provider's key set (${c.jwksUrl.origin}${c.jwksUrl.pathname}) could not be fetched: ${e.message}. The token could not be checked; retry later.`,
        retryAfterSeconds: Math.max(1, Math.ceil(c.jwksCooldownMs / 1000)),
      };
    }
    if (e instanceof errors.JWTExpired) return invalid('expired', `The token expired at ${iso(e.payload.exp)} (${tolerance}).`);
    if (e instanceof errors.JWTClaimValidationFailed) {
      switch (e.claim) {
        case 'iss':
          return invalid('wrong-issuer', `The token was not issued by ${c.issuer} (iss).`);
        case 'aud':
          return invalid(
            'wrong-audience',
            `The token is not meant for this gateway: its audience (aud) is not ${c.audiences.join(' or ')}.`,
          );
        case 'nbf':
          return invalid('not-yet-valid', `The token is not valid before ${iso(e.payload.nbf)} (nbf, ${tolerance}).`);
        case 'exp':
          return invalid('no-expiry', 'The token has no valid exp (expiry) claim; tokens that never expire are not accepted.');
        case 'sub':
          return invalid('bad-subject', 'The token has no sub (subject) claim.');
        default:
          return invalid(
            'bad-claim',
            `The token's ${/^[a-z_]{1,20}$/i.test(e.claim) ? e.claim : 'a'} claim is ${e.reason === 'missing' ? 'missing' : 'not valid'}.`,
          );
      }
    }
    if (e instanceof errors.JWKSNoMatchingKey) {
      return invalid(
        'unknown-key',
        `No key of the identity provider's key set matches the token (kid); the set is re-fetched for an unknown kid at most every ${Math.round(c.jwksCooldownMs / 1000)} s.`,
      );
    }
    if (e instanceof errors.JWSSignatureVerificationFailed)
      return invalid('bad-signature', "The token's signature does not verify with the identity provider's key.");
    if (e instanceof errors.JOSEAlgNotAllowed)
      return invalid('alg-not-allowed', `The token's algorithm is not accepted (accepted: ${c.algorithms.join(', ')}).`);
    if (e instanceof errors.JOSENotSupported)
      return invalid('unsupported', 'The token uses a header parameter, algorithm or key type the gateway does not support.');
    if (e instanceof errors.JWTInvalid || e instanceof errors.JWSInvalid)
      return invalid('malformed', 'The token is not a well-formed signed JWT.');
    // A key of the set that cannot be imported, or any other jose refusal: still the token's problem.
    return invalid('invalid', 'The token could not be verified.');
  }
}
