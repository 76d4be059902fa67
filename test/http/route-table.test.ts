// The route table (src/http/route-table.ts) on its own: for openapi.yaml as it is, and for
// random templates and request paths (fast-check): a path matches an operation iff it is the
// contract's spelling - literal segments byte for byte, parameters decoded once - and every
// other spelling (case, escapes in literals, empty and dot segments) matches nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { accessTableFromSpec, type OperationAccess } from '../../src/http/auth/roles.js';
import { compileRouteTable, routeLabel, routeTableFor, UNMATCHED_ROUTE, type RouteMatch } from '../../src/http/route-table.js';
import { loadSpec } from '../../src/http/spec.js';
import { samplePath } from './auth-helpers.js';

const op = (method: string, route: string): OperationAccess => ({
  method,
  route,
  operationId: `${method}:${route}`,
  requiredRole: 'admin',
});
const kindOf = (m: RouteMatch): string => (m.kind === 'operation' ? `${m.operation.method} ${m.operation.route}` : m.kind);

describe('the route table of openapi.yaml', () => {
  const doc = loadSpec().document;
  const operations = accessTableFromSpec(doc).operations;
  const table = routeTableFor(doc);

  it('is compiled once per document', () => assert.equal(routeTableFor(doc), table));

  it('matches every operation at its canonical path, with its decoded parameters; HEAD is GET', () => {
    for (const o of operations) {
      const path = samplePath(o, () => 'a b/ü');
      const m = table.match(o.method, `${path}?x=%zz&y=/Topics`);
      assert.equal(kindOf(m), `${o.method} ${o.route}`, path);
      assert.equal(routeLabel(m), o.route);
      const names = [...o.route.matchAll(/\{([^}]+)\}/g)].map((x) => x[1]);
      assert.deepEqual(m.kind === 'operation' && m.params, Object.fromEntries(names.map((n) => [n, 'a b/ü'])));
      if (o.method === 'GET') assert.equal(kindOf(table.match('HEAD', path)), `GET ${o.route}`);
    }
  });

  it('refuses every other spelling of every path: case, escaped letters, empty and dot segments, other forms', () => {
    for (const o of operations) {
      const path = samplePath(o, () => 'victim');
      const first = path.split('/')[1];
      const rest = path.slice(1 + first.length);
      const hex = first.charCodeAt(0).toString(16);
      for (const variant of [
        `/${first[0].toUpperCase()}${first.slice(1)}${rest}`,
        path.toUpperCase(),
        `/%${hex}${first.slice(1)}${rest}`,
        `/%${hex.toUpperCase()}${first.slice(1)}${rest}`,
        `${path}/`,
        `/${path}`,
        `${path}//`,
        `/./${path.slice(1)}`,
        `/x/..${path}`,
        `${path}/.`,
        `http://localhost${path}`,
        '*',
        '',
      ]) {
        assert.equal(table.match(o.method, variant).kind, 'not-found', `${o.method} ${variant}`);
      }
    }
  });

  it("405 with the contract's methods in Allow; no OPTIONS, TRACE or lower-case method", () => {
    const m = table.match('PUT', '/topics');
    assert.deepEqual(m, { kind: 'method-not-allowed', route: '/topics', allow: ['GET', 'POST', 'DELETE'] });
    assert.equal(routeLabel(m), '/topics');
    for (const method of ['OPTIONS', 'TRACE', 'PROPFIND', 'get', 'CONNECT']) {
      assert.equal(table.match(method, '/topics').kind, 'method-not-allowed', method);
    }
    assert.equal(table.match('HEAD', '/plans').kind, 'method-not-allowed', 'HEAD only where GET is');
    assert.equal(routeLabel(table.match('GET', '/nope')), UNMATCHED_ROUTE);
  });

  it('a parameter is one non-empty segment of pchars, decoded once; malformed escapes and `.`/`..` match nothing', () => {
    const param = (raw: string) => {
      const m = table.match('GET', `/topics/${raw}`);
      return m.kind === 'operation' ? m.params.topic : m.kind;
    };
    assert.equal(param('a%2Fb'), 'a/b');
    assert.equal(param('%2574'), '%74', 'decoded once, not twice');
    assert.equal(param('a%2e'), 'a.');
    assert.equal(param('%C3%BC'), 'ü');
    for (const raw of ['%zz', '%', '%4', '%C3', '.', '..', '%2E', '%2e%2E', 'a#b', 'a\\b', 'a"b', 'a<b', 'ü', 'a%20b c', 'a{b}']) {
      assert.equal(param(raw), 'not-found', raw);
    }
  });
});

describe('compileRouteTable', () => {
  it('literal paths win over parameters, backtracking when the literal branch ends nowhere', () => {
    const t = compileRouteTable([op('GET', '/a/{x}/c'), op('GET', '/a/b'), op('DELETE', '/a/{x}')]);
    assert.equal(kindOf(t.match('GET', '/a/b')), 'GET /a/b');
    assert.equal(kindOf(t.match('GET', '/a/b/c')), 'GET /a/{x}/c');
    assert.equal(kindOf(t.match('DELETE', '/a/b')), 'method-not-allowed', 'OpenAPI: the concrete path is the one addressed');
    assert.equal(kindOf(t.match('DELETE', '/a/z')), 'DELETE /a/{x}');
  });

  it('refuses at compile time what it could not match exactly', () => {
    for (const bad of [['/a/{x}', '/a/{y}'], ['/a/{x}.json'], ['/a//b'], ['/a/'], ['a'], ['/a/{x}/{x}'], ['/A%20'], ['/a/..']]) {
      assert.throws(() => compileRouteTable(bad.map((r) => op('GET', r))), /openapi\.yaml/, bad.join(' '));
    }
    assert.equal(kindOf(compileRouteTable([op('GET', '/')]).match('GET', '/?q')), 'GET /');
  });

  // Random tables: templates under distinct first literals, literals of lower-case letters,
  // parameters named by depth (so no two templates clash).
  const literal = fc.stringMatching(/^[a-z][a-z.]{0,5}$/).filter((s) => !s.includes('..') && s !== '.');
  const template = fc.tuple(literal, fc.array(fc.oneof(literal, fc.constant(null)), { maxLength: 4 })).map(([head, tail]) => ({
    head,
    segments: [head, ...tail.map((s, i) => s ?? `{p${i + 1}}`)],
  }));
  const tables = fc.uniqueArray(template, { minLength: 1, maxLength: 6, selector: (t) => t.head });
  const value = fc.string({ minLength: 1, maxLength: 8, unit: 'binary' }).filter((v) => v !== '.' && v !== '..');
  /** Every char escaped, hex in either case: still the canonical spelling of the same value. */
  const escapeAll = (v: string, upper: boolean) =>
    [...Buffer.from(v, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')[upper ? 'toUpperCase' : 'toLowerCase']()}`).join('');

  it('property: a canonical spelling matches its template with the values; a respelled literal matches nothing', () => {
    fc.assert(
      fc.property(tables, fc.nat(), fc.array(value, { minLength: 5, maxLength: 5 }), fc.nat(), fc.nat(3), (ts, pick, values, at, how) => {
        const t = ts[pick % ts.length];
        const route = `/${t.segments.join('/')}`;
        const table = compileRouteTable(ts.map((x) => op('GET', `/${x.segments.join('/')}`)));
        // Parameters spelled three ways: encodeURIComponent, every byte escaped in lower or upper hex.
        let j = 0;
        const spell = (v: string, n: number) => (n % 3 === 0 ? encodeURIComponent(v) : escapeAll(v, n % 3 === 2));
        const spelled = t.segments.map((s) => (s.startsWith('{') ? spell(values[j], j++) : s));
        const m = table.match('GET', `/${spelled.join('/')}`);
        assert.equal(kindOf(m), `GET ${route}`);
        const expected = Object.fromEntries(t.segments.filter((s) => s.startsWith('{')).map((s, i) => [s.slice(1, -1), values[i]]));
        assert.deepEqual(m.kind === 'operation' && m.params, expected);

        // Respell one literal segment: a letter upper-cased or escaped, or the segment dotted.
        const literals = t.segments.map((s, i) => (s.startsWith('{') ? -1 : i)).filter((i) => i >= 0);
        const i = literals[at % literals.length];
        const seg = spelled[i];
        const c = seg.search(/[a-z]/);
        const respelled = [
          seg.slice(0, c) + seg[c].toUpperCase() + seg.slice(c + 1),
          `${seg.slice(0, c)}%${seg.charCodeAt(c).toString(16)}${seg.slice(c + 1)}`,
          `${seg.slice(0, c)}%${seg.charCodeAt(c).toString(16).toUpperCase()}${seg.slice(c + 1)}`,
          `./${seg}`,
        ][how];
        const other = spelled.map((s, n) => (n === i ? respelled : s));
        assert.equal(table.match('GET', `/${other.join('/')}`).kind, 'not-found', `/${other.join('/')} for ${route}`);
      }),
      { numRuns: 300 },
    );
  });

  it('property: an empty, `.` or `..` segment anywhere, or a trailing slash, matches nothing', () => {
    fc.assert(
      fc.property(tables, fc.nat(), fc.nat(), fc.constantFrom('', '.', '..'), (ts, pick, at, inserted) => {
        const t = ts[pick % ts.length];
        const table = compileRouteTable(ts.map((x) => op('GET', `/${x.segments.join('/')}`)));
        const spelled = t.segments.map((s) => (s.startsWith('{') ? 'v' : s));
        const pos = at % (spelled.length + 1);
        const path = `/${[...spelled.slice(0, pos), inserted, ...spelled.slice(pos)].join('/')}`;
        assert.equal(table.match('GET', path).kind, 'not-found', path);
      }),
      { numRuns: 300 },
    );
  });
});
