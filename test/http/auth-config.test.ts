// Authentication configuration: where tokens come from, how they are stored (hashes),
// and the rule that only the embedded demo runs without authentication by default.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { loadAuthConfig } from '../../src/http/auth/config.js';
import { parseClientCertRoles, certificateIdentities } from '../../src/http/auth/client-cert.js';
import { generateToken, parseTokenDocument, parseTokenEnv, sha256Hex, TokenStore } from '../../src/http/auth/tokens.js';

const token = generateToken();
const hash = sha256Hex(token);
const files = (m: Record<string, string>) => (p: string) => {
  if (!(p in m)) throw Object.assign(new Error('nope'), { code: 'ENOENT' });
  return Buffer.from(m[p]);
};

describe('the refuse-to-start rule', () => {
  it('embedded demo without credentials: no authentication, with a warning', () => {
    const c = loadAuthConfig({}, { externalKafka: false });
    assert.equal(c.access.mode, 'none');
    assert.equal(c.notices[0]?.level, 'warn');
  });

  it('a real cluster without credentials: refuses to start, and says how to fix it', () => {
    assert.throws(
      () => loadAuthConfig({}, { externalKafka: true }),
      /refusing to start without authentication in front of a real cluster.*GATEWAY_TOKENS_FILE.*GATEWAY_AUTH=none/s,
    );
  });

  it('a real cluster with GATEWAY_AUTH=none: starts, warning loudly', () => {
    const c = loadAuthConfig({ GATEWAY_AUTH: 'none' }, { externalKafka: true });
    assert.equal(c.access.mode, 'none');
    assert.equal(c.notices[0]?.level, 'warn');
    assert.match(c.notices[0].msg, /AUTHENTICATION DISABLED/);
  });

  it('GATEWAY_AUTH=required without credentials refuses even for the demo; =none with tokens is contradictory', () => {
    assert.throws(() => loadAuthConfig({ GATEWAY_AUTH: 'required' }, { externalKafka: false }), /refusing to start/);
    assert.throws(
      () => loadAuthConfig({ GATEWAY_AUTH: 'none', GATEWAY_TOKENS: `a:viewer:${hash}` }, { externalKafka: true }),
      /contradicts/,
    );
    assert.throws(() => loadAuthConfig({ GATEWAY_AUTH: 'maybe' }, { externalKafka: false }), /GATEWAY_AUTH must be/);
  });

  it('tokens turn authentication on, for the demo too', () => {
    const c = loadAuthConfig({ GATEWAY_TOKENS: `ci:viewer:${hash}` }, { externalKafka: false });
    assert.equal(c.access.mode, 'enforced');
    assert.deepEqual(c.access.mode === 'enforced' && c.access.tokens.verify(token), { id: 'ci', role: 'viewer' });
    // The startup notice names tokens, never hashes.
    assert.doesNotMatch(JSON.stringify(c.notices), new RegExp(hash));
  });
});

describe('token sources', () => {
  it('GATEWAY_TOKENS_FILE as YAML or JSON, merged with GATEWAY_TOKENS', () => {
    const other = generateToken();
    const c = loadAuthConfig(
      { GATEWAY_TOKENS_FILE: '/t.yaml', GATEWAY_TOKENS: `[{"name":"b","role":"admin","sha256":"${sha256Hex(other)}"}]` },
      {
        externalKafka: true,
        readFile: files({ '/t.yaml': `# ops tokens\n- name: a\n  role: operator\n  sha256: ${hash.toUpperCase()}\n` }),
      },
    );
    assert.ok(c.access.mode === 'enforced');
    assert.deepEqual(c.access.tokens.verify(token), { id: 'a', role: 'operator' });
    assert.deepEqual(c.access.tokens.verify(other), { id: 'b', role: 'admin' });
    assert.equal(c.access.tokens.verify('nope'), undefined);
  });

  it('reports every problem at once, never echoing a value that may be a token', () => {
    let message = '';
    try {
      loadAuthConfig(
        { GATEWAY_TOKENS_FILE: '/missing', GATEWAY_TOKENS: `x:superuser:${hash},y:viewer:${token},x:viewer:${hash}` },
        { externalKafka: true, readFile: files({}) },
      );
    } catch (e) {
      message = (e as Error).message;
    }
    assert.match(message, /GATEWAY_TOKENS_FILE: cannot read \/missing: ENOENT/);
    assert.match(message, /entry 0: role must be one of viewer, operator, admin/);
    assert.match(message, /entry 1: sha256 must be 64 hex/);
    assert.ok(!message.includes(token), 'the plaintext token leaked into the error');
  });

  it('rejects duplicate names and hashes, unknown fields, non-lists', () => {
    assert.throws(() => loadAuthConfig({ GATEWAY_TOKENS: `a:viewer:${hash} b:admin:${hash}` }, { externalKafka: false }), /same hash/);
    assert.throws(() => parseTokenDocument(`- {name: a, role: viewer, sha256: ${hash}, token: x}`, 'f'), /unknown field\(s\) token/);
    assert.throws(() => parseTokenDocument('name: a', 'f'), /expected a list/);
    assert.deepEqual(parseTokenEnv('  '), []);
  });

  it('TokenStore compares against every entry and matches exactly', () => {
    const store = new TokenStore(parseTokenEnv(`a:viewer:${sha256Hex('t1')} b:admin:${sha256Hex('t2')}`));
    assert.equal(store.verify('t2')?.id, 'b');
    assert.equal(store.verify('t2 '), undefined);
    assert.equal(store.verify(''), undefined);
    assert.equal(store.size, 2);
  });

  it('the token CLI prints a token and the hash entry that verifies it', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'src/http/auth/token-cli.ts', '--name', 'ci', '--role', 'viewer'], {
      encoding: 'utf8',
    });
    const issued = /give it to ci\):\n(\S+)\n/.exec(out)?.[1];
    assert.ok(issued, out);
    const line = /^ci:viewer:[0-9a-f]{64}$/m.exec(out)?.[0];
    assert.ok(line, out);
    assert.equal(new TokenStore(parseTokenEnv(line)).verify(issued)?.id, 'ci');
    const docEntries = parseTokenDocument(out.slice(out.indexOf('- name'), out.indexOf('or to GATEWAY_TOKENS')), 'cli');
    assert.equal(new TokenStore(docEntries).verify(issued)?.role, 'viewer');
  });
});

describe('HTTPS / mTLS settings', () => {
  it('cert and key go together; a client CA needs HTTPS and roles; roles need a client CA', () => {
    const read = files({ '/c': 'C', '/k': 'K', '/ca': 'CA' });
    const base = { GATEWAY_TOKENS: `a:viewer:${hash}` };
    assert.throws(
      () => loadAuthConfig({ ...base, GATEWAY_TLS_CERT_FILE: '/c' }, { externalKafka: false, readFile: read }),
      /must be set together/,
    );
    assert.throws(
      () => loadAuthConfig({ ...base, GATEWAY_TLS_CLIENT_CA_FILE: '/ca' }, { externalKafka: false, readFile: read }),
      /needs GATEWAY_TLS_CERT_FILE/,
    );
    assert.throws(
      () => loadAuthConfig({ ...base, GATEWAY_TLS_CLIENT_ROLES: 'bot=admin' }, { externalKafka: false, readFile: read }),
      /needs GATEWAY_TLS_CLIENT_CA_FILE/,
    );
    const c = loadAuthConfig(
      { GATEWAY_TLS_CERT_FILE: '/c', GATEWAY_TLS_KEY_FILE: '/k', GATEWAY_TLS_CLIENT_CA_FILE: '/ca', GATEWAY_TLS_CLIENT_ROLES: 'bot=admin' },
      { externalKafka: true, readFile: read },
    );
    assert.equal(c.access.mode, 'enforced');
    assert.equal(c.https?.clientCa?.toString(), 'CA');
  });

  it('client certificate roles: cn-or-san=role, identities from CN and every SAN', () => {
    assert.deepEqual(parseClientCertRoles('bot=operator, spiffe://corp/ci=viewer'), [
      { name: 'bot', role: 'operator' },
      { name: 'spiffe://corp/ci', role: 'viewer' },
    ]);
    assert.throws(() => parseClientCertRoles('bot'), /not <cn-or-san>=/);
    assert.throws(() => parseClientCertRoles('bot=root'), /not <cn-or-san>=/);
    assert.deepEqual(certificateIdentities({ subject: { CN: 'bot' }, subjectaltname: 'DNS:bot.corp, URI:spiffe://corp/ci' }), [
      'bot',
      'bot.corp',
      'spiffe://corp/ci',
    ]);
  });
});
