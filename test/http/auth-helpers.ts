// Shared by the auth, audit, hostile-input and fault tests: one token per role, and a
// way to address every operation of openapi.yaml as read at test time, so routes added
// later are covered without touching these tests.
import type { AccessControlOptions } from '../../src/http/auth/access-control.js';
import { accessTableFromSpec, ROLES, type OperationAccess, type Role } from '../../src/http/auth/roles.js';
import { generateToken, sha256Hex, TokenStore, type TokenEntry } from '../../src/http/auth/tokens.js';
import { loadSpec } from '../../src/http/spec.js';

export interface RoleTokens {
  /** Plaintext tokens by role (what a caller sends). */
  token: Record<Role, string>;
  auth: AccessControlOptions;
}

export function roleTokens(): RoleTokens {
  const token = Object.fromEntries(ROLES.map((r) => [r, generateToken()])) as Record<Role, string>;
  const entries: TokenEntry[] = ROLES.map((role) => ({ name: `${role}-caller`, role, sha256: Buffer.from(sha256Hex(token[role]), 'hex') }));
  return { token, auth: { mode: 'enforced', tokens: new TokenStore(entries) } };
}

export function specOperations(): readonly OperationAccess[] {
  return accessTableFromSpec(loadSpec().document).operations;
}

type Schema = Record<string, unknown>;

function resolve(schema: unknown): Schema {
  let s = schema as Schema | undefined;
  const doc = loadSpec().document as Schema;
  for (let i = 0; i < 10 && s && typeof s.$ref === 'string'; i++) {
    s = s.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((o, k) => (o as Schema)?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Schema;
  }
  return s ?? {};
}

/** The parameters (path and query) of an operation, resolved, including path-level ones. */
export function operationParameters(op: OperationAccess): { name: string; in: string; required: boolean; schema: Schema }[] {
  const item = loadSpec().document.paths[op.route] as Schema;
  const operation = item[op.method.toLowerCase()] as Schema;
  const params = [...((item.parameters as unknown[]) ?? []), ...((operation.parameters as unknown[]) ?? [])].map(resolve);
  return params.map((p) => ({ name: String(p.name), in: String(p.in), required: p.required === true, schema: resolve(p.schema) }));
}

export function requestBodySchema(op: OperationAccess): Schema | undefined {
  const operation = (loadSpec().document.paths[op.route] as Schema)[op.method.toLowerCase()] as Schema;
  const body = resolve(operation.requestBody);
  const content = body.content as Record<string, { schema?: unknown }> | undefined;
  return content?.['application/json']?.schema !== undefined ? resolve(content['application/json'].schema) : undefined;
}

export { resolve as resolveSchema };

/** A plausible value for a path parameter: a topic that does not exist, 0 for integers. */
export function sampleParam(schema: Schema): string {
  if (schema.type === 'integer' || schema.type === 'number') return String(typeof schema.minimum === 'number' ? schema.minimum : 0);
  if (Array.isArray(schema.enum) && schema.enum.length) return String(schema.enum[0]);
  return 'no-such-topic-for-auth';
}

/** The operation's path with every {param} filled in. */
export function samplePath(op: OperationAccess, fill: (name: string, schema: Schema) => string = (_n, s) => sampleParam(s)): string {
  const params = operationParameters(op).filter((p) => p.in === 'path');
  return op.route.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const p = params.find((x) => x.name === name);
    return encodeURIComponent(fill(name, p?.schema ?? {}));
  });
}
