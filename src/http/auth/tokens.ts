// Bearer tokens. The gateway never stores or sees a token at rest: configuration holds
// SHA-256 hashes (a token is 32 random bytes, so a fast hash is enough: there is no
// dictionary to brute-force), and a presented token is hashed and compared in
// constant time against every configured hash.
//
// Configuration formats:
//   GATEWAY_TOKENS_FILE: YAML or JSON, a list of {name, role, sha256}
//     - { name: ci-readonly, role: viewer, sha256: 9f86d0...}
//   GATEWAY_TOKENS: the same list as JSON, or compact "name:role:sha256" entries
//     separated by commas or whitespace.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import { isRole, ROLES, type Principal, type Role } from './roles.js';

export interface TokenEntry {
  name: string;
  role: Role;
  /** SHA-256 of the token, 32 bytes. */
  sha256: Buffer;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const TOKEN_NAME = /^[A-Za-z0-9._@:-]{1,64}$/;

/** RFC 6750 b64token, bounded: anything else is not a bearer token this gateway issued. */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]{1,1024}=*$/;

export function sha256Hex(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new token: 32 random bytes, base64url (43 characters). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

export function isWellFormedBearerToken(token: string): boolean {
  return BEARER_TOKEN.test(token);
}

export class TokenStore {
  readonly #entries: readonly TokenEntry[];

  constructor(entries: readonly TokenEntry[]) {
    this.#entries = entries;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Names and roles (never hashes): for the startup log line. */
  describe(): { name: string; role: Role }[] {
    return this.#entries.map((e) => ({ name: e.name, role: e.role }));
  }

  /**
   * The principal a token belongs to. Every entry is compared, whatever matched, so the
   * time taken says nothing about which entry (or how much of a hash) matched.
   */
  verify(token: string): Principal | undefined {
    const presented = createHash('sha256').update(token, 'utf8').digest();
    let found: TokenEntry | undefined;
    for (const e of this.#entries) {
      if (timingSafeEqual(presented, e.sha256) && found === undefined) found = e;
    }
    return found && { id: found.name, role: found.role };
  }
}

function entryFrom(raw: unknown, where: string, problems: string[]): TokenEntry | undefined {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push(`${where}: expected {name, role, sha256}`);
    return undefined;
  }
  const { name, role, sha256, ...rest } = raw as Record<string, unknown>;
  const before = problems.length;
  if (typeof name !== 'string' || !TOKEN_NAME.test(name)) problems.push(`${where}: name must match ${TOKEN_NAME.source}`);
  if (!isRole(role)) problems.push(`${where}: role must be one of ${ROLES.join(', ')}`);
  if (typeof sha256 !== 'string' || !HEX_SHA256.test(sha256)) {
    // Never echo the value: it may be a plaintext token pasted by mistake.
    problems.push(`${where}: sha256 must be 64 hex characters (the SHA-256 of the token; see npm run token:new)`);
  }
  const unknown = Object.keys(rest);
  if (unknown.length) problems.push(`${where}: unknown field(s) ${unknown.join(', ')}`);
  if (problems.length > before) return undefined;
  return { name: name as string, role: role as Role, sha256: Buffer.from(sha256 as string, 'hex') };
}

/** YAML or JSON list of {name, role, sha256}. Throws with every problem listed. */
export function parseTokenDocument(text: string, source: string): TokenEntry[] {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new Error(`${source}: not YAML/JSON (${(e as Error).message.split('\n')[0]})`);
  }
  if (doc === null || doc === undefined) return [];
  if (!Array.isArray(doc)) throw new Error(`${source}: expected a list of {name, role, sha256}`);
  const problems: string[] = [];
  const entries = doc.map((raw, i) => entryFrom(raw, `${source}[${i}]`, problems)).filter((e): e is TokenEntry => e !== undefined);
  if (problems.length) throw new Error(problems.join('; '));
  return entries;
}

/** GATEWAY_TOKENS: a JSON list, or "name:role:sha256" entries separated by commas/whitespace. */
export function parseTokenEnv(value: string, source = 'GATEWAY_TOKENS'): TokenEntry[] {
  const v = value.trim();
  if (v === '') return [];
  if (v.startsWith('[')) return parseTokenDocument(v, source);
  const problems: string[] = [];
  const entries = v
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((item, i) => {
      const [name, role, sha256, ...extra] = item.split(':');
      if (extra.length) {
        problems.push(`${source} entry ${i}: expected name:role:sha256`);
        return undefined;
      }
      return entryFrom({ name, role, sha256 }, `${source} entry ${i}`, problems);
    })
    .filter((e): e is TokenEntry => e !== undefined);
  if (problems.length) throw new Error(problems.join('; '));
  return entries;
}

/** Duplicate names or hashes make audit lines ambiguous: refuse them. */
export function checkUnique(entries: readonly TokenEntry[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  const hashes = new Set<string>();
  for (const e of entries) {
    if (names.has(e.name)) problems.push(`token name '${e.name}' is configured twice`);
    const h = e.sha256.toString('hex');
    if (hashes.has(h)) problems.push(`token '${e.name}' has the same hash as another token`);
    names.add(e.name);
    hashes.add(h);
  }
  return problems;
}
