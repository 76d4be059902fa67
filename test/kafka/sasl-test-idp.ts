// A test OIDC identity provider on loopback: the client credentials grant at POST /token (HTTP
// Basic client authentication), RS256 JWTs signed by a key made at start, and that key's JWKS at
// GET /jwks (what the simulator's OAUTHBEARER validator is pointed at). Knobs for the tests:
// token lifetime, audience, issuer, an already-expired token, and failing the next requests.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';

export interface IdpOptions {
  clientId: string;
  clientSecret: string;
  issuer?: string;
  audience?: string;
  lifetimeSeconds?: number;
}

export interface TokenClaims {
  sub: string;
  aud?: string;
  iss?: string;
  /** Seconds; null leaves the claim out. */
  iat?: number | null;
  exp?: number;
  scope?: string;
}

export class TestIdp {
  readonly issued: { jti: string; scope: string | null; iat: number; exp: number }[] = [];
  /** The next n token requests answer HTTP 503. */
  failNext = 0;
  /** Answers so far that were failures (503). */
  failed = 0;
  audience: string;
  lifetimeSeconds: number;
  /** Issue tokens that expired this many seconds ago (0: valid tokens). */
  expiredBySeconds = 0;
  #jti = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly key: CryptoKey,
    readonly jwk: JWK,
    readonly opts: Required<Pick<IdpOptions, 'clientId' | 'clientSecret' | 'issuer'>>,
    audience: string,
    lifetimeSeconds: number,
  ) {
    this.audience = audience;
    this.lifetimeSeconds = lifetimeSeconds;
  }

  static async start(opts: IdpOptions): Promise<TestIdp> {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
    const server = http.createServer();
    const idp = new TestIdp(
      server,
      privateKey,
      jwk,
      { clientId: opts.clientId, clientSecret: opts.clientSecret, issuer: opts.issuer ?? 'https://idp.test' },
      opts.audience ?? 'kafka',
      opts.lifetimeSeconds ?? 3600,
    );
    server.on('request', (req, res) => void idp.#handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return idp;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  get tokenUrl(): string {
    return `${this.url}/token`;
  }
  get jwksUrl(): string {
    return `${this.url}/jwks`;
  }

  /** A JWT signed by this IdP's key (any claims: tests make expired or wrong-audience ones). */
  sign(claims: TokenClaims & { jti?: string }, key: CryptoKey = this.key): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const jwt = new SignJWT({ ...(claims.scope !== undefined && { scope: claims.scope }) })
      .setProtectedHeader({ alg: 'RS256', kid: this.jwk.kid! })
      .setSubject(claims.sub)
      .setIssuer(claims.iss ?? this.opts.issuer)
      .setAudience(claims.aud ?? this.audience)
      .setExpirationTime(claims.exp ?? now + this.lifetimeSeconds)
      .setJti(claims.jti ?? `t${++this.#jti}`);
    if (claims.iat !== null) jwt.setIssuedAt(claims.iat ?? now);
    return jwt.sign(key);
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const body = await new Promise<string>((resolve) => {
      let b = '';
      req.on('data', (c: Buffer) => (b += c.toString()));
      req.on('end', () => resolve(b));
    });
    const json = (status: number, v: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(v));
    };
    if (req.method === 'GET' && req.url === '/jwks') return json(200, { keys: [this.jwk] });
    if (req.method !== 'POST' || req.url !== '/token') return json(404, { error: 'not_found' });
    if (this.failNext > 0) {
      this.failNext--;
      this.failed++;
      return json(503, { error: 'temporarily_unavailable' });
    }
    const expected = `Basic ${Buffer.from(`${encodeURIComponent(this.opts.clientId)}:${encodeURIComponent(this.opts.clientSecret)}`).toString('base64')}`;
    if (req.headers.authorization !== expected)
      return json(401, { error: 'invalid_client', error_description: 'client authentication failed' });
    const form = new URLSearchParams(body);
    if (form.get('grant_type') !== 'client_credentials') return json(400, { error: 'unsupported_grant_type' });
    const now = Math.floor(Date.now() / 1000);
    const iat = this.expiredBySeconds > 0 ? now - this.expiredBySeconds - this.lifetimeSeconds : now;
    const exp = iat + this.lifetimeSeconds;
    const jti = `t${++this.#jti}`;
    const scope = form.get('scope');
    const token = await this.sign({ sub: this.opts.clientId, iat, exp, jti, ...(scope !== null && { scope }) });
    this.issued.push({ jti, scope, iat, exp });
    json(200, { access_token: token, token_type: 'Bearer', expires_in: exp - now });
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
