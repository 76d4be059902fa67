// A test identity provider: key pairs the test holds, a JWKS served over HTTP on loopback
// (as a real IdP serves it, so the gateway's fetch, cache, refetch and cooldown are the real
// ones), and tokens the test signs with jose. Counts fetches; can answer 500 or go away.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload } from 'jose';

export const ISSUER = 'https://sso.test.example/realms/platform';
export const AUDIENCE = 'kafka-admin-gateway';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicKey, jwk };
}

export interface TestIdp {
  jwksUrl: string;
  /** Keys served in the JWKS right now. */
  published: SigningKey[];
  /** JWKS requests answered so far (200 or not). */
  fetches: number;
  /** Answer the JWKS with this status instead of 200. */
  failWith: number | undefined;
  close(): Promise<void>;
}

export async function startIdp(keys: SigningKey[]): Promise<TestIdp> {
  const idp: TestIdp = {
    jwksUrl: '',
    published: [...keys],
    fetches: 0,
    failWith: undefined,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
  const server: Server = createServer((req, res) => {
    if (req.url !== '/protocol/openid-connect/certs') return void res.writeHead(404).end();
    idp.fetches++;
    if (idp.failWith !== undefined) return void res.writeHead(idp.failWith).end('IdP down');
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: idp.published.map((k) => k.jwk) }));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  idp.jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/protocol/openid-connect/certs`;
  return idp;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export interface TokenOptions {
  key: SigningKey;
  claims?: JWTPayload;
  issuer?: string;
  audience?: string | string[];
  subject?: string | null;
  /** Seconds since the epoch; null for no exp at all. */
  exp?: number | null;
  nbf?: number;
  /** Header overrides (a kid the key set lacks, another alg). */
  header?: Record<string, unknown>;
}

/** A token as the IdP would issue it: signed, iss/aud/sub/iat/exp set unless told otherwise. */
export async function token(o: TokenOptions): Promise<string> {
  const jwt = new SignJWT({ ...o.claims })
    .setProtectedHeader({ alg: o.key.alg, kid: o.key.kid, typ: 'JWT', ...o.header })
    .setIssuer(o.issuer ?? ISSUER)
    .setAudience(o.audience ?? AUDIENCE)
    .setIssuedAt();
  if (o.subject !== null) jwt.setSubject(o.subject ?? 'f81d4fae-7dec-11d0-a765-00a0c91e6bf6');
  if (o.exp !== null) jwt.setExpirationTime(o.exp ?? nowSeconds() + 300);
  if (o.nbf !== undefined) jwt.setNotBefore(o.nbf);
  return jwt.sign(o.key.privateKey);
}
