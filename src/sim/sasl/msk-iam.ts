// AWS MSK IAM tokens, checked as far as a simulator can: MSK's broker-side check is AWS's own
// and unpublished. A token from aws-msk-iam-sasl-signer-js is base64url of a SigV4-presigned URL:
//   https://kafka.<region>.amazonaws.com/?Action=kafka-cluster%3AConnect&X-Amz-Algorithm=AWS4-HMAC-SHA256
//     &X-Amz-Credential=<akid>/<yyyymmdd>/<region>/kafka-cluster/aws4_request&X-Amz-Date=<yyyymmddThhmmssZ>
//     &X-Amz-Expires=<s>&X-Amz-SignedHeaders=host[&X-Amz-Security-Token=...]&X-Amz-Signature=<hex>
//     &User-Agent=aws-msk-iam-sasl-signer-js/<v>   (added after signing, so not signed)
// What is verified: the structure above, the region and service, that the signing time is not in
// the future (beyond the skew) and the token has not expired (X-Amz-Date + X-Amz-Expires), and
// the SigV4 signature itself, recomputed here (AWS's published algorithm, node:crypto) with the
// secret the test configured for that access key id. What is not: a session token's validity
// (STS would say), the IAM policy (kafka-cluster:Connect allowed?), and anything about real AWS
// accounts. The principal is the access key id (MSK's would be the IAM identity's ARN).
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface MskIamOptions {
  region: string;
  /** Access key id -> secret access key: the static test credentials the simulator accepts. */
  credentials: Readonly<Record<string, string>>;
  /** Allowed clock difference for the signing time, seconds. Default 300 (SigV4's usual 5 min). */
  clockSkewSeconds?: number;
}

export type MskIamCheck = { ok: true; principal: string; expiresAtMs: number } | { ok: false; reason: string };

const sha256hex = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 escaping as SigV4 wants it (encodeURIComponent leaves !'()* alone). */
function uriEscape(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

function parseAmzDate(s: string): number | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : undefined;
}

/** SigV4 of a presigned GET / on `host` with `query` (no X-Amz-Signature in it), empty payload. */
export function presignedSignature(host: string, query: [string, string][], secret: string, amzDate: string, scope: string): string {
  const canonicalQuery = [...query]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${uriEscape(k)}=${uriEscape(v)}`)
    .join('&');
  const canonicalRequest = ['GET', '/', canonicalQuery, `host:${host}`, '', 'host', sha256hex('')].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256hex(canonicalRequest)].join('\n');
  const [date, region, service, terminator] = scope.split('/');
  const kSigning = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), terminator);
  return hmac(kSigning, stringToSign).toString('hex');
}

export function verifyMskIamToken(token: string, opts: MskIamOptions, nowMs: number): MskIamCheck {
  let url: URL;
  try {
    url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'not a base64url-encoded URL' };
  }
  const host = `kafka.${opts.region}.amazonaws.com`;
  if (url.protocol !== 'https:' || url.host !== host || url.pathname !== '/')
    return { ok: false, reason: `not a presigned URL for ${host}` };
  const q = url.searchParams;
  const one = (k: string): string | undefined => (q.getAll(k).length === 1 ? q.get(k)! : undefined);
  if (one('Action') !== 'kafka-cluster:Connect') return { ok: false, reason: 'Action is not kafka-cluster:Connect' };
  if (one('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') return { ok: false, reason: 'X-Amz-Algorithm is not AWS4-HMAC-SHA256' };
  if (one('X-Amz-SignedHeaders') !== 'host') return { ok: false, reason: 'X-Amz-SignedHeaders is not host' };
  const credential = one('X-Amz-Credential')?.split('/') ?? [];
  const [accessKeyId, date, region, service, terminator] = credential;
  if (credential.length !== 5 || region !== opts.region || service !== 'kafka-cluster' || terminator !== 'aws4_request') {
    return { ok: false, reason: 'X-Amz-Credential is not <key>/<date>/<region>/kafka-cluster/aws4_request for this region' };
  }
  const amzDate = one('X-Amz-Date') ?? '';
  const signedAt = parseAmzDate(amzDate);
  if (signedAt === undefined || amzDate.slice(0, 8) !== date)
    return { ok: false, reason: 'X-Amz-Date is malformed or not the credential date' };
  const expires = Number(one('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > 900) return { ok: false, reason: 'X-Amz-Expires is not 1-900 seconds' };
  const skewMs = (opts.clockSkewSeconds ?? 300) * 1000;
  if (signedAt > nowMs + skewMs) return { ok: false, reason: 'signed in the future' };
  const expiresAtMs = signedAt + expires * 1000;
  if (nowMs >= expiresAtMs) return { ok: false, reason: 'expired' };
  const secret = accessKeyId !== undefined ? opts.credentials[accessKeyId] : undefined;
  if (secret === undefined) return { ok: false, reason: 'unknown access key id' };
  const signature = one('X-Amz-Signature') ?? '';
  const signed = [...q.entries()].filter(([k]) => k !== 'X-Amz-Signature' && k !== 'User-Agent');
  const expected = presignedSignature(host, signed, secret, amzDate, credential.slice(1).join('/'));
  if (!/^[0-9a-f]{64}$/.test(signature) || !timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
    return { ok: false, reason: 'signature does not match' };
  }
  return { ok: true, principal: accessKeyId, expiresAtMs };
}
