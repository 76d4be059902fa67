// AWS MSK IAM: the token is AWS's own signer's (aws-msk-iam-sasl-signer-js): a SigV4-presigned
// URL for https://kafka.<region>.amazonaws.com/?Action=kafka-cluster:Connect, base64url-encoded,
// valid 15 minutes (less when the credentials expire sooner), sent as the bearer token of SASL
// OAUTHBEARER, which MSK accepts for IAM access control. Credentials come from the default AWS
// chain (env AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY[/AWS_SESSION_TOKEN], AWS_PROFILE, web identity
// (EKS IRSA / Pod Identity), ECS task role, EC2 instance profile), or from assuming a role.
// The signer (and the AWS SDK behind it) is loaded only when this mechanism is configured.
import type { AwsMskIamSaslConfig } from './config.js';
import type { FetchedToken } from './token-source.js';

/** X-Amz-Date (yyyymmddThhmmssZ) of a signer token, in ms: when it was signed. */
export function mskTokenSignedAtMs(token: string): number | undefined {
  try {
    const url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
    const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(url.searchParams.get('X-Amz-Date') ?? '');
    return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : undefined;
  } catch {
    return undefined;
  }
}

export async function fetchMskIamToken(cfg: Pick<AwsMskIamSaslConfig, 'region' | 'roleArn' | 'roleSessionName'>): Promise<FetchedToken> {
  const signer = await import('aws-msk-iam-sasl-signer-js');
  let answer: { token: string; expiryTime: number };
  try {
    answer =
      cfg.roleArn !== undefined
        ? await signer.generateAuthTokenFromRole({
            region: cfg.region,
            awsRoleArn: cfg.roleArn,
            ...(cfg.roleSessionName !== undefined && { awsRoleSessionName: cfg.roleSessionName }),
          })
        : await signer.generateAuthToken({ region: cfg.region });
  } catch (e) {
    // The SDK's messages name the missing or refused credentials, never a secret.
    throw new Error(`AWS_MSK_IAM: no token from the AWS signer (region ${cfg.region}): ${(e as Error).message}`);
  }
  const signedAt = mskTokenSignedAtMs(answer.token) ?? Date.now();
  return { value: answer.token, issuedAtMs: signedAt, expiresAtMs: answer.expiryTime };
}
