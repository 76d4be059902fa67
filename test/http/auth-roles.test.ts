// openapi.yaml as the access-control and hostile-input contract, checked on the spec
// as it is at test time (routes added later are covered automatically):
//  - every operation has an operationId and an x-required-role;
//  - only a fixed few reads are public; changes need operator or admin, never
//    viewer (a read may need more than viewer, e.g. quotas);
//  - every request schema is closed (additionalProperties: false), and every integer,
//    array and string a caller sends is bounded.
// Plus the unit behaviour of the access table built from the spec (the route table's own
// matching rules are in route-table.test.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { accessTableFromSpec, PUBLIC, REQUIRED_ROLE_EXTENSION, ROLES } from '../../src/http/auth/roles.js';
import { compileRouteTable } from '../../src/http/route-table.js';
import { loadSpec } from '../../src/http/spec.js';
import { operationParameters, requestBodySchema, resolveSchema, specOperations } from './auth-helpers.js';

/** Public on purpose: probes and the API document. Adding one is a security decision: add it here. */
const PUBLIC_OPERATIONS = new Set(['getHealth', 'getReadiness', 'getOpenApi']);

type Schema = Record<string, unknown>;

describe('x-required-role on every operation', () => {
  const doc = loadSpec().document;
  const ops: { where: string; method: string; op: Schema }[] = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace']) {
      const op = item[method] as Schema | undefined;
      if (op) ops.push({ where: `${method.toUpperCase()} ${route}`, method, op });
    }
  }

  it('every operation has an operationId and a valid x-required-role', () => {
    const missing = ops.filter(
      ({ op }) => typeof op.operationId !== 'string' || ![...ROLES, PUBLIC].includes(op[REQUIRED_ROLE_EXTENSION] as never),
    );
    assert.deepEqual(
      missing.map(
        (m) => `${m.where}: operationId=${String(m.op.operationId)} ${REQUIRED_ROLE_EXTENSION}=${String(m.op[REQUIRED_ROLE_EXTENSION])}`,
      ),
      [],
      `declare ${REQUIRED_ROLE_EXTENSION}: viewer | operator | admin on each operation`,
    );
    assert.deepEqual(accessTableFromSpec(doc).problems, []);
  });

  it('only the probes and the API document are public; changes need operator or admin', () => {
    const wrong: string[] = [];
    for (const { where, method, op } of ops) {
      const role = op[REQUIRED_ROLE_EXTENSION];
      if (role === PUBLIC && !PUBLIC_OPERATIONS.has(op.operationId as string))
        wrong.push(`${where}: public is reserved for ${[...PUBLIC_OPERATIONS].join(', ')}`);
      if (method !== 'get' && (role === 'viewer' || role === PUBLIC)) wrong.push(`${where}: a change must need operator or admin`);
    }
    assert.deepEqual(wrong, []);
  });

  it('the public operations say so in OpenAPI terms too (security: [])', () => {
    for (const { where, op } of ops) {
      if (op[REQUIRED_ROLE_EXTENSION] === PUBLIC) assert.deepEqual(op.security, [], where);
      else assert.equal(op.security, undefined, `${where} must not override the top-level security`);
    }
  });
});

describe('request schemas are closed and bounded', () => {
  /** Walks a request schema; reports open objects and unbounded numbers, arrays, strings. */
  // `branch`: a subschema of oneOf/anyOf/allOf without a type of its own only narrows its
  // parent (e.g. `required` plus `false` properties), whose additionalProperties applies.
  function lint(schema: unknown, path: string, out: string[], seen = new Set<unknown>(), branch = false): void {
    const s = resolveSchema(schema);
    if (seen.has(s)) return;
    seen.add(s);
    for (const k of ['oneOf', 'anyOf', 'allOf'] as const)
      for (const [i, sub] of ((s[k] as unknown[]) ?? []).entries()) lint(sub, `${path}/${k}/${i}`, out, seen, true);
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.includes('object') || (s.properties && !(branch && s.type === undefined))) {
      if (s.additionalProperties === undefined || s.additionalProperties === true)
        out.push(`${path}: objects must set additionalProperties (false, or a schema for maps)`);
      if (typeof s.additionalProperties === 'object' && s.maxProperties === undefined) out.push(`${path}: a map needs maxProperties`);
      for (const [k, sub] of Object.entries((s.properties as Record<string, unknown>) ?? {})) lint(sub, `${path}/${k}`, out, seen);
      if (typeof s.additionalProperties === 'object') lint(s.additionalProperties, `${path}/*`, out, seen);
    }
    if (types.includes('array')) {
      if (typeof s.maxItems !== 'number') out.push(`${path}: arrays need maxItems`);
      lint(s.items, `${path}/items`, out, seen);
    }
    if (types.includes('integer') || types.includes('number')) {
      if (typeof s.minimum !== 'number' && typeof s.exclusiveMinimum !== 'number' && !s.enum) out.push(`${path}: numbers need a minimum`);
      if (typeof s.maximum !== 'number' && typeof s.exclusiveMaximum !== 'number' && !s.enum) out.push(`${path}: numbers need a maximum`);
    }
    if (
      types.includes('string') &&
      typeof s.maxLength !== 'number' &&
      !s.enum &&
      s.const === undefined &&
      !(typeof s.pattern === 'string' && /\{\d*,?\d+\}\$?'?$/.test(s.pattern))
    ) {
      out.push(`${path}: strings need maxLength, an enum or a length-bounded pattern`);
    }
  }

  for (const op of specOperations()) {
    it(`${op.method} ${op.route}`, () => {
      const out: string[] = [];
      const body = requestBodySchema(op);
      if (body) lint(body, 'body', out);
      for (const p of operationParameters(op)) lint(p.schema, `${p.in}/${p.name}`, out);
      // booleans and enums need nothing; everything else is reported
      assert.deepEqual(out, []);
    });
  }
});

describe('accessTableFromSpec', () => {
  const doc = {
    paths: {
      '/a': { get: { operationId: 'readA', 'x-required-role': 'viewer' }, post: { operationId: 'changeA' } },
      '/a/{id}': { delete: { operationId: 'deleteA', 'x-required-role': 'superuser' }, put: { 'x-required-role': 'public' } },
      '/a/literal': { get: { 'x-required-role': 'public' } },
    },
  };
  const table = accessTableFromSpec(doc);
  const routes = compileRouteTable(table.operations);
  const opOf = (method: string, path: string) => {
    const m = routes.match(method, path);
    return m.kind === 'operation' ? m.operation : undefined;
  };

  it('a missing, unknown or misplaced declaration makes the operation admin-only and is reported', () => {
    assert.equal(opOf('POST', '/a')?.requiredRole, 'admin');
    assert.equal(opOf('DELETE', '/a/x')?.requiredRole, 'admin');
    assert.equal(opOf('PUT', '/a/x')?.requiredRole, 'admin');
    assert.equal(table.problems.length, 3);
  });

  it('matches templates, literal paths first, HEAD as GET; unknown routes and methods are no operation', () => {
    assert.equal(opOf('GET', '/a')?.operationId, 'readA');
    assert.equal(opOf('HEAD', '/a')?.operationId, 'readA');
    assert.equal(opOf('GET', '/a/literal')?.requiredRole, 'public');
    assert.equal(opOf('GET', '/a/other'), undefined);
    assert.equal(opOf('GET', '/b'), undefined);
  });
});
