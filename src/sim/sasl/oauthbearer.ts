// SASL OAUTHBEARER server side, as Kafka's OAuthBearerSaslServer with the KIP-768 default
// validator (OAuthBearerValidatorCallbackHandler with a JWKS endpoint: ValidatorAccessTokenValidator,
// BrokerJwtValidator in 4.x), plus MSK-IAM-style tokens (./msk-iam.ts) for AWS_MSK_IAM tests.
//
// Exchange (OAuthBearerSaslServer.evaluateResponse):
//  - client first message (RFC 7628 section 3.1, OAuthBearerClientInitialResponse):
//    n,[a=<authzid>],^A auth=Bearer <token> ^A [key=value ^A]* ^A
//    A malformed message is a SaslException: SaslServerAuthenticator answers 58 with its generic
//    "Authentication failed during authentication due to invalid credentials with SASL mechanism
//    OAUTHBEARER" (the exception text is not sent).
//  - valid token -> done, empty server message; principal = the sub claim; the token's exp is the
//    credential lifetime (CREDENTIAL.LIFETIME.MS), which bounds session_lifetime_ms (KIP-368).
//  - invalid token -> the validator sets errorStatus "invalid_token" and the server answers
//    error_code 0 with the RFC 7628 section 3.2.2 error challenge {"status":"invalid_token"};
//    the client must answer %x01 and then gets SaslAuthenticationException(that JSON): error 58
//    with the JSON as the message. The reason (expired, audience, signature) stays in the
//    broker's log, as in Kafka; here it is kept for tests (lastRefusal).
//  - an authzid other than the principal: 58 "Authentication failed: Client requested an
//    authorization id (x) that is different from the token's principal name (y)".
// Extensions (KIP-342) are parsed and handed to the event; Kafka's default validator does not
// validate extensions (UnsupportedCallbackException -> none kept), so they never fail a login.
//
// JWT checks (ValidatorAccessTokenValidator / jose4j JwtConsumer): signature with a key from the
// JWKS (alg none refused), exp and iat required, sub (sasl.oauthbearer.sub.claim.name) required,
// aud checked against sasl.oauthbearer.expected.audience when set, iss against
// sasl.oauthbearer.expected.issuer when set, clock skew sasl.oauthbearer.clock.skew.seconds (30).
import { createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { verifyMskIamToken, type MskIamOptions } from './msk-iam.js';

export interface SimOAuthBearerOptions {
  /** sasl.oauthbearer.jwks.endpoint.url: where the signing keys are (the test serves it). */
  jwksUrl?: string;
  /** sasl.oauthbearer.expected.audience (any of them must be in aud). */
  expectedAudience?: string[];
  /** sasl.oauthbearer.expected.issuer. */
  expectedIssuer?: string;
  /** sasl.oauthbearer.clock.skew.seconds. Default 30. */
  clockSkewSeconds?: number;
  /** sasl.oauthbearer.sub.claim.name. Default "sub". */
  subClaimName?: string;
  /** Also accept AWS MSK IAM signer tokens (not JWTs) signed with these static credentials. */
  awsMskIam?: MskIamOptions;
}

export interface ValidToken {
  principal: string;
  expiresAtMs: number;
  kind: 'jwt' | 'aws-msk-iam';
  /** The JWT's jti, or its iat, for tests telling tokens apart; never the token. */
  tokenId: string;
}

export type OAuthBearerStep =
  | { kind: 'challenge'; response: Buffer }
  | { kind: 'done'; token: ValidToken; extensions: Record<string, string> }
  | { kind: 'failed'; message: string };

export const OAUTHBEARER_GENERIC_FAILURE =
  'Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER';
const INVALID_TOKEN = '{"status":"invalid_token"}';

/** The token checks of one simulated cluster (the JWKS is fetched once and cached by jose). */
export class OAuthBearerValidator {
  readonly #jwks: JWTVerifyGetKey | undefined;
  /** Why the last token was refused (the broker's log line), for tests. */
  lastRefusal: string | null = null;

  constructor(readonly opts: SimOAuthBearerOptions) {
    this.#jwks = opts.jwksUrl ? createRemoteJWKSet(new URL(opts.jwksUrl)) : undefined;
  }

  async validate(token: string, nowMs: number): Promise<ValidToken | undefined> {
    const isJwt = token.split('.').length === 3;
    if (!isJwt && this.opts.awsMskIam) {
      const r = verifyMskIamToken(token, this.opts.awsMskIam, nowMs);
      if (r.ok) return { principal: r.principal, expiresAtMs: r.expiresAtMs, kind: 'aws-msk-iam', tokenId: String(r.expiresAtMs) };
      return this.#refuse(`AWS MSK IAM token: ${r.reason}`);
    }
    if (!this.#jwks) return this.#refuse('no JWKS configured for JWTs');
    const sub = this.opts.subClaimName ?? 'sub';
    try {
      const { payload } = await jwtVerify(token, this.#jwks, {
        currentDate: new Date(nowMs),
        clockTolerance: this.opts.clockSkewSeconds ?? 30,
        requiredClaims: ['exp', 'iat', sub],
        ...(this.opts.expectedAudience?.length && { audience: this.opts.expectedAudience }),
        ...(this.opts.expectedIssuer !== undefined && { issuer: this.opts.expectedIssuer }),
      });
      const principal = payload[sub];
      if (typeof principal !== 'string' || principal.trim() === '') return this.#refuse(`the ${sub} claim is not a non-empty string`);
      return {
        principal,
        expiresAtMs: payload.exp! * 1000,
        kind: 'jwt',
        tokenId: typeof payload.jti === 'string' ? payload.jti : String(payload.iat),
      };
    } catch (e) {
      return this.#refuse((e as Error).message);
    }
  }

  #refuse(reason: string): undefined {
    this.lastRefusal = reason;
    return undefined;
  }
}

interface ClientFirst {
  authzid: string;
  token: string;
  extensions: Record<string, string>;
}

/** OAuthBearerClientInitialResponse's grammar; undefined when the message does not match it. */
export function parseClientFirst(bytes: Buffer): ClientFirst | undefined {
  // eslint-disable-next-line no-control-regex -- \x01 (kvsep) separates the message's fields in RFC 7628's grammar
  const m = /^n,(?:a=((?:[\x01-\x7F]|=2C|=3D)*?))?,\x01((?:[A-Za-z]+=[\x21-\x7E \t\r\n]+\x01)*)\x01$/.exec(bytes.toString('utf8'));
  if (!m) return undefined;
  const authzid = m[1] ?? '';
  if (/[=,]/.test(authzid.replace(/=2C|=3D/g, ''))) return undefined;
  const props: Record<string, string> = {};
  for (const kv of m[2].split('\x01').filter((s) => s !== '')) {
    const eq = kv.indexOf('=');
    props[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const auth = props.auth;
  delete props.auth;
  const am = auth === undefined ? null : /^(\w+) +([-_.a-zA-Z0-9]+)$/.exec(auth);
  if (!am || am[1].toLowerCase() !== 'bearer') return undefined;
  return { authzid: authzid.replace(/=2C/g, ',').replace(/=3D/g, '='), token: am[2], extensions: props };
}

/** One connection's OAUTHBEARER exchange (one instance per SaslHandshake). */
export class OAuthBearerServerSession {
  /** The error challenge sent, awaiting the client's %x01. */
  #errorMessage: string | null = null;

  constructor(private readonly validator: OAuthBearerValidator) {}

  async step(bytes: Buffer, nowMs: number): Promise<OAuthBearerStep> {
    if (bytes.length === 1 && bytes[0] === 0x01 && this.#errorMessage !== null) return { kind: 'failed', message: this.#errorMessage };
    this.#errorMessage = null;
    const first = parseClientFirst(bytes);
    if (!first) return { kind: 'failed', message: OAUTHBEARER_GENERIC_FAILURE };
    const token = await this.validator.validate(first.token, nowMs);
    if (!token) {
      this.#errorMessage = INVALID_TOKEN;
      return { kind: 'challenge', response: Buffer.from(INVALID_TOKEN) };
    }
    if (first.authzid !== '' && first.authzid !== token.principal) {
      return {
        kind: 'failed',
        message: `Authentication failed: Client requested an authorization id (${first.authzid}) that is different from the token's principal name (${token.principal})`,
      };
    }
    return { kind: 'done', token, extensions: first.extensions };
  }
}
