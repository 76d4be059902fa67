// SCRAM-SHA-256 / SCRAM-SHA-512 server side (RFC 5802, RFC 7677), as Kafka's
// ScramSaslServer implements it:
//  - credentials are stored as {salt, iterations, StoredKey, ServerKey}, never the
//    password (what kafka-configs --alter --add-config 'SCRAM-SHA-256=[...]' stores);
//  - client-first "n,,n=<user>,r=<cnonce>" (no channel binding: gs2 flag "n"; an
//    authzid other than the user is refused, as Kafka does);
//  - server-first "r=<cnonce><snonce>,s=<salt b64>,i=<iterations>";
//  - client-final "c=biws,r=<nonce>,p=<proof b64>" -> verify
//    H(ClientProof XOR HMAC(StoredKey, AuthMessage)) == StoredKey;
//  - server-final "v=<ServerSignature b64>".
// An unknown user fails at the first message and a wrong proof at the final one; both
// surface to the client as SASL_AUTHENTICATION_FAILED (58) with Kafka's message.
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

export const SCRAM_MECHANISMS = ['SCRAM-SHA-256', 'SCRAM-SHA-512'] as const;
export type ScramMechanism = (typeof SCRAM_MECHANISMS)[number];

/** Kafka's minimum (ScramMechanism.minIterations), which clients also enforce. */
export const SCRAM_MIN_ITERATIONS = 4096;

const HASH: Record<ScramMechanism, { algorithm: 'sha256' | 'sha512'; keyLength: number }> = {
  'SCRAM-SHA-256': { algorithm: 'sha256', keyLength: 32 },
  'SCRAM-SHA-512': { algorithm: 'sha512', keyLength: 64 },
};

export function isScramMechanism(m: string | null): m is ScramMechanism {
  return m !== null && (SCRAM_MECHANISMS as readonly string[]).includes(m);
}

export interface ScramCredential {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

const hmac = (m: ScramMechanism, key: Buffer, data: string | Buffer): Buffer => createHmac(HASH[m].algorithm, key).update(data).digest();
const h = (m: ScramMechanism, data: Buffer): Buffer => createHash(HASH[m].algorithm).update(data).digest();

export function scramCredential(
  mechanism: ScramMechanism,
  password: string,
  iterations = SCRAM_MIN_ITERATIONS,
  salt: Buffer = randomBytes(16),
): ScramCredential {
  const { algorithm, keyLength } = HASH[mechanism];
  // Normalize(password) is SASLprep; Kafka's ScramFormatter uses the UTF-8 bytes as is.
  const salted = pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, keyLength, algorithm);
  const clientKey = hmac(mechanism, salted, 'Client Key');
  return { salt, iterations, storedKey: h(mechanism, clientKey), serverKey: hmac(mechanism, salted, 'Server Key') };
}

/** RFC 5802 saslname: "=2C" is ",", "=3D" is "="; any other "=" escape is malformed. */
function decodeSaslName(s: string): string | undefined {
  if (/=(?!2C|3D)/.test(s)) return undefined;
  return s.replace(/=2C/g, ',').replace(/=3D/g, '=');
}

function attributes(s: string): Map<string, string> | undefined {
  const m = new Map<string, string>();
  for (const part of s.split(',')) {
    const eq = part.indexOf('=');
    if (eq !== 1) return undefined; // attribute names are one letter
    m.set(part[0], part.slice(2));
  }
  return m;
}

export type ScramStep =
  { kind: 'continue'; response: Buffer } | { kind: 'done'; response: Buffer; user: string } | { kind: 'failed'; message: string };

/** Kafka's answer to any credential mismatch (SaslServerAuthenticator): says nothing about which part was wrong. */
export function scramFailureMessage(mechanism: ScramMechanism): string {
  return `Authentication failed during authentication due to invalid credentials with SASL mechanism ${mechanism}`;
}

/** One connection's exchange: two client messages, then done or failed. */
export class ScramServerSession {
  #state: 'first' | 'final' | 'over' = 'first';
  #user = '';
  #credential: ScramCredential | undefined;
  #clientFirstBare = '';
  #serverFirst = '';
  #nonce = '';
  #gs2Header = '';

  constructor(
    readonly mechanism: ScramMechanism,
    private readonly lookup: (user: string) => ScramCredential | undefined,
    private readonly serverNonce: () => string = () => randomBytes(18).toString('base64'),
  ) {}

  step(message: Buffer): ScramStep {
    if (this.#state === 'first') return this.#first(message.toString('utf8'));
    if (this.#state === 'final') return this.#final(message.toString('utf8'));
    return { kind: 'failed', message: 'Unexpected SCRAM message after the exchange ended' };
  }

  #fail(message: string): ScramStep {
    this.#state = 'over';
    this.#credential = undefined;
    return { kind: 'failed', message };
  }

  #first(text: string): ScramStep {
    // gs2-header: "n," (client does not support channel binding) or "y,"; "p=" is refused.
    const m = /^([ny]),(a=[^,]*)?,(.*)$/.exec(text);
    if (!m) return this.#fail('Invalid SCRAM client first message');
    const bare = m[3];
    const attrs = attributes(bare);
    const user = attrs?.get('n') !== undefined ? decodeSaslName(attrs.get('n')!) : undefined;
    const cnonce = attrs?.get('r');
    if (!attrs || user === undefined || user === '' || !cnonce || attrs.has('m')) return this.#fail('Invalid SCRAM client first message');
    const authzid = m[2] ? decodeSaslName(m[2].slice(2)) : '';
    const credential = this.lookup(user);
    if (!credential) return this.#fail(scramFailureMessage(this.mechanism));
    if (authzid && authzid !== user)
      return this.#fail('Authentication failed: Client requested an authorization id that is different from username');
    this.#user = user;
    this.#credential = credential;
    this.#clientFirstBare = bare;
    this.#gs2Header = text.slice(0, text.length - bare.length);
    this.#nonce = cnonce + this.serverNonce();
    this.#serverFirst = `r=${this.#nonce},s=${credential.salt.toString('base64')},i=${credential.iterations}`;
    this.#state = 'final';
    return { kind: 'continue', response: Buffer.from(this.#serverFirst) };
  }

  #final(text: string): ScramStep {
    const credential = this.#credential!;
    const proofAt = text.lastIndexOf(',p=');
    if (proofAt < 0) return this.#fail('Invalid SCRAM client final message');
    const withoutProof = text.slice(0, proofAt);
    const attrs = attributes(withoutProof);
    const proof = Buffer.from(text.slice(proofAt + 3), 'base64');
    // c= must carry the gs2 header of the first message (no channel binding here).
    if (!attrs || attrs.get('r') !== this.#nonce || attrs.get('c') !== Buffer.from(this.#gs2Header).toString('base64'))
      return this.#fail('Invalid SCRAM client final message');
    const authMessage = `${this.#clientFirstBare},${this.#serverFirst},${withoutProof}`;
    const clientSignature = hmac(this.mechanism, credential.storedKey, authMessage);
    if (proof.length !== clientSignature.length) return this.#fail(scramFailureMessage(this.mechanism));
    const clientKey = Buffer.alloc(proof.length);
    for (let i = 0; i < proof.length; i++) clientKey[i] = proof[i] ^ clientSignature[i];
    if (!timingSafeEqual(h(this.mechanism, clientKey), credential.storedKey)) return this.#fail(scramFailureMessage(this.mechanism));
    const serverSignature = hmac(this.mechanism, credential.serverKey, authMessage);
    this.#state = 'over';
    return { kind: 'done', response: Buffer.from(`v=${serverSignature.toString('base64')}`), user: this.#user };
  }
}

/** Users' SCRAM credentials per mechanism, derived once from passwords (test fixtures). */
export class ScramUserStore {
  readonly #byMechanism = new Map<ScramMechanism, Map<string, ScramCredential>>();

  constructor(users: Readonly<Record<string, string>> = {}, iterations = SCRAM_MIN_ITERATIONS) {
    for (const mechanism of SCRAM_MECHANISMS) {
      this.#byMechanism.set(
        mechanism,
        new Map(Object.entries(users).map(([user, password]) => [user, scramCredential(mechanism, password, iterations)])),
      );
    }
  }

  lookup(mechanism: ScramMechanism, user: string): ScramCredential | undefined {
    return this.#byMechanism.get(mechanism)?.get(user);
  }
}
