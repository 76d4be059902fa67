// Mutual TLS on the gateway's HTTPS listener (certificates made with openssl at test
// time): a client certificate signed by the client CA and named in
// GATEWAY_TLS_CLIENT_ROLES (by CN or SAN) is a principal with that role; a certificate
// from another CA, or one no rule names, grants nothing; bearer tokens keep working
// on the same listener.
import assert from 'node:assert/strict';
import { request as httpsRequest } from 'node:https';
import { after, before, describe, it } from 'node:test';
import { loadAuthConfig } from '../../src/http/auth/config.js';
import { startServer, type RunningServer } from '../../src/http/server.js';
import { sha256Hex, generateToken } from '../../src/http/auth/tokens.js';
import { createTestPki, opensslAvailable, type Pem, type TestPki } from '../sim/tls-certs.js';
import { startGateway, type Gateway } from './helpers.js';

interface Answer {
  status: number;
  body: { type?: string; detail?: string } & Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

describe('mutual TLS', { skip: opensslAvailable() ? false : 'openssl is not installed' }, () => {
  let pki: TestPki;
  let gw: Gateway;
  let server: RunningServer;
  const token = generateToken();

  function call(method: string, path: string, opts: { client?: Pem; token?: string; body?: unknown } = {}): Promise<Answer> {
    const url = new URL(path, server.url);
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        url,
        {
          method,
          ca: pki.ca.cert,
          ...(opts.client && { cert: opts.client.cert, key: opts.client.key }),
          headers: {
            ...(opts.token && { Authorization: `Bearer ${opts.token}` }),
            ...(opts.body !== undefined && { 'Content-Type': 'application/json' }),
          },
          agent: false,
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(opts.body === undefined ? undefined : JSON.stringify(opts.body));
    });
  }

  before(async () => {
    pki = createTestPki([{ cn: 'ops-bot' }, { cn: 'ci-runner', san: 'URI:spiffe://corp/ci' }, { cn: 'stranger' }]);
    const auth = loadAuthConfig(
      {
        GATEWAY_TLS_CERT_FILE: pki.server.certFile,
        GATEWAY_TLS_KEY_FILE: pki.server.keyFile,
        GATEWAY_TLS_CLIENT_CA_FILE: pki.ca.certFile,
        GATEWAY_TLS_CLIENT_ROLES: 'ops-bot=operator,spiffe://corp/ci=viewer',
        GATEWAY_TOKENS: `admin-token:admin:${sha256Hex(token)}`,
      },
      { externalKafka: true },
    );
    gw = await startGateway({ app: { auth: auth.access } });
    server = await startServer({
      app: gw.app,
      kafka: gw.kafka,
      state: { draining: false },
      logger: gw.logger,
      port: 0,
      host: '127.0.0.1',
      https: auth.https,
    });
  });
  after(async () => {
    await server?.shutdown('test');
    await gw?.close();
    pki?.cleanup();
  });

  it('serves HTTPS', () => assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/));

  it('a mapped client certificate (by CN) is a principal with its role', async () => {
    const created = await call('POST', '/topics', {
      client: pki.clients['ops-bot'],
      body: { name: 'mtls-topic', partitions: 1, replicationFactor: 1 },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const del = await call('DELETE', '/topics/mtls-topic', { client: pki.clients['ops-bot'] });
    assert.equal(del.status, 403);
    assert.equal(del.body.type, 'https://kafka-admin-gateway.dev/problems/insufficient-role');
    assert.match(del.body.detail ?? '', /cert:ops-bot has operator/);
  });

  it('a mapped client certificate (by SAN URI) is a principal with its role', async () => {
    assert.equal((await call('GET', '/topics', { client: pki.clients['ci-runner'] })).status, 200);
    assert.equal((await call('POST', '/topics', { client: pki.clients['ci-runner'], body: { name: 'x' } })).status, 403);
  });

  it('a certificate no rule names, or one from another CA with a mapped CN, grants nothing', async () => {
    for (const client of [pki.clients.stranger, pki.rogueClient]) {
      const res = await call('GET', '/topics', { client });
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="kafka-admin-gateway"');
    }
  });

  it('bearer tokens work on the same listener, with or without a certificate', async () => {
    assert.equal((await call('GET', '/cluster', { token })).status, 200);
    assert.equal((await call('DELETE', '/topics/mtls-topic', { token, client: pki.clients.stranger })).status, 204);
  });

  it('probes stay public over HTTPS', async () => {
    assert.equal((await call('GET', '/healthz')).status, 200);
  });
});
