// The simulator's SASL OAUTHBEARER (Kafka's KIP-768 validator with a JWKS) and KIP-368 session
// handling, byte by byte on raw connections: the RFC 7628 messages, Kafka's answers to refused
// tokens (the {"status":"invalid_token"} challenge, then 58), session_lifetime_ms, re-authentication
// and the closing of sessions that were not re-authenticated in time. Time is a ManualClock, so
// token expiry and session expiry are exact.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateKeyPair } from 'jose';
import { ManualClock } from '../../src/sim/clock.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { parseClientFirst } from '../../src/sim/sasl/oauthbearer.js';
import type { SaslAuthenticatedEvent } from '../../src/sim/sasl/session.js';
import { TestIdp } from '../kafka/sasl-test-idp.js';
import { Session } from './session.js';

const bearer = (token: string, ext = '', authzid = '') =>
  Buffer.from(`n,${authzid ? `a=${authzid}` : ''},\x01auth=Bearer ${token}\x01${ext}\x01`);

/** Resolves true once the session's socket is closed (by the broker), false if still open after `ms`. */
function closedWithin(s: Session, ms = 2000): Promise<boolean> {
  const socket = (s as unknown as { socket: import('node:net').Socket }).socket;
  if (socket.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    socket.once('close', () => (clearTimeout(t), resolve(true)));
  });
}

describe('parseClientFirst (OAuthBearerClientInitialResponse grammar)', () => {
  it('reads the token, authzid and extensions', () => {
    assert.deepEqual(parseClientFirst(bearer('a.b.c', 'logicalCluster=lkc-1\x01')), {
      authzid: '',
      token: 'a.b.c',
      extensions: { logicalCluster: 'lkc-1' },
    });
    assert.deepEqual(parseClientFirst(bearer('tok', '', 'alice')), { authzid: 'alice', token: 'tok', extensions: {} });
  });
  it('refuses what Kafka refuses', () => {
    for (const bad of [
      '',
      'n,,\x01\x01',
      'n,,\x01auth=Basic abc\x01\x01',
      'y,,\x01auth=Bearer t\x01\x01',
      'n,,\x01auth=Bearer t\x01',
      'n,,\x01auth=Bearer t!\x01\x01',
      'n,,\x01auth=Bearer t\x01k1=v\x01\x01',
    ]) {
      assert.equal(parseClientFirst(Buffer.from(bad)), undefined, JSON.stringify(bad));
    }
  });
});

describe('OAUTHBEARER on the wire (JWKS validator)', () => {
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const nowS = () => Math.floor(clock.now() / 1000);
  let idp: TestIdp;
  let sim: Simulator;
  let port: number;
  const events: SaslAuthenticatedEvent[] = [];

  before(async () => {
    idp = await TestIdp.start({ clientId: 'c', clientSecret: 's', audience: 'kafka' });
    sim = await startSimulator({
      brokers: 1,
      clock,
      saslOAuthBearer: { jwksUrl: idp.jwksUrl, expectedAudience: ['kafka'], expectedIssuer: 'https://idp.test' },
      onSaslAuthenticated: (e) => events.push(e),
    });
    port = Number(sim.bootstrapServers[0].split(':')[1]);
  });
  after(async () => {
    await sim.close();
    await idp.close();
  });

  async function authenticate(token: string, ext = '') {
    const s = await Session.open(port, 'oauth-wire');
    const hs = await s.send(17, 1, { mechanism: 'OAUTHBEARER' });
    assert.deepEqual({ errorCode: hs.errorCode, mechanisms: hs.mechanisms }, { errorCode: 0, mechanisms: ['OAUTHBEARER'] });
    return { s, first: await s.send(36, 2, { authBytes: bearer(token, ext) }) };
  }

  it('a valid token: no challenge, the session lasts until the token expires', async () => {
    const { s, first } = await authenticate(await idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 600 }), 'traceId=abc\x01');
    assert.equal(first.errorCode, 0);
    assert.equal(first.authBytes.length, 0);
    assert.equal(first.sessionLifetimeMs, 600_000n);
    assert.deepEqual(events.at(-1), {
      brokerId: 0,
      connection: events.at(-1)!.connection,
      mechanism: 'OAUTHBEARER',
      principal: 'alice',
      reauthentication: false,
      sessionLifetimeMs: 600_000,
      extensions: { traceId: 'abc' },
      tokenId: events.at(-1)!.tokenId,
    });
    const md = await s.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
    assert.equal(md.brokers.length, 1);
    s.close();
  });

  // What the broker would log (the client only ever sees invalid_token): the reason checked too.
  const refusals: [string, () => Promise<string>, RegExp][] = [
    ['an expired token', () => idp.sign({ sub: 'alice', iat: nowS() - 600, exp: nowS() - 60 }), /"exp" claim timestamp check failed/],
    [
      'a token for another audience',
      () => idp.sign({ sub: 'alice', aud: 'other', iat: nowS(), exp: nowS() + 600 }),
      /unexpected "aud" claim value/,
    ],
    [
      'a token from another issuer',
      () => idp.sign({ sub: 'alice', iss: 'https://evil.test', iat: nowS(), exp: nowS() + 600 }),
      /unexpected "iss" claim value/,
    ],
    [
      'a token signed by another key under the same kid',
      async () => idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 600 }, (await generateKeyPair('RS256')).privateKey),
      /signature verification failed/,
    ],
    [
      'an unsigned token (alg none)',
      async () =>
        `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'alice', aud: 'kafka', iss: 'https://idp.test', iat: nowS(), exp: nowS() + 600 })).toString('base64url')}.`,
      /./,
    ],
    ['a token without iat', () => idp.sign({ sub: 'alice', iat: null, exp: nowS() + 600 }), /missing required "iat" claim/],
  ];
  for (const [what, token, reason] of refusals) {
    it(`${what}: the invalid_token challenge, then 58 with it, and the connection closes`, async () => {
      const { s, first } = await authenticate(await token());
      assert.deepEqual(
        { errorCode: first.errorCode, authBytes: first.authBytes.toString() },
        { errorCode: 0, authBytes: '{"status":"invalid_token"}' },
      );
      const final = await s.send(36, 2, { authBytes: Buffer.from([1]) });
      assert.deepEqual(
        { errorCode: final.errorCode, errorMessage: final.errorMessage },
        { errorCode: 58, errorMessage: '{"status":"invalid_token"}' },
      );
      assert.equal(await closedWithin(s), true);
      assert.match(sim.saslServer.oauthBearer!.lastRefusal ?? '', reason);
    });
  }

  it('a malformed first message: 58 with the generic message', async () => {
    const s = await Session.open(port, 'oauth-wire');
    await s.send(17, 1, { mechanism: 'OAUTHBEARER' });
    const r = await s.send(36, 2, { authBytes: Buffer.from('n,,\x01auth=Basic dXNlcjpwYXNz\x01\x01') });
    assert.deepEqual(
      { errorCode: r.errorCode, errorMessage: r.errorMessage },
      {
        errorCode: 58,
        errorMessage: 'Authentication failed during authentication due to invalid credentials with SASL mechanism OAUTHBEARER',
      },
    );
  });

  it('an authorization id other than the principal: 58', async () => {
    const s = await Session.open(port, 'oauth-wire');
    await s.send(17, 1, { mechanism: 'OAUTHBEARER' });
    const r = await s.send(36, 2, { authBytes: bearer(await idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 600 }), '', 'admin') });
    assert.equal(r.errorCode, 58);
    assert.equal(
      r.errorMessage,
      "Authentication failed: Client requested an authorization id (admin) that is different from the token's principal name (alice)",
    );
  });

  it('re-authentication: a new token extends the session; a request mid-exchange or after expiry closes the connection', async () => {
    const t1 = await idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 10 });
    const { s } = await authenticate(t1);
    clock.advance(8000);
    // SaslHandshake on the authenticated connection begins the re-authentication.
    assert.equal((await s.send(17, 1, { mechanism: 'OAUTHBEARER' })).errorCode, 0);
    const r = await s.send(36, 2, { authBytes: bearer(await idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 30 })) });
    assert.deepEqual({ errorCode: r.errorCode, lifetime: r.sessionLifetimeMs }, { errorCode: 0, lifetime: 30_000n });
    assert.equal(events.at(-1)?.reauthentication, true);
    clock.advance(5000); // past the first token's exp, within the new session
    assert.equal(
      (await s.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).brokers.length,
      1,
    );

    // A Metadata request between the handshake and SaslAuthenticate: Kafka ends the connection.
    clock.advance(2000);
    assert.equal((await s.send(17, 1, { mechanism: 'OAUTHBEARER' })).errorCode, 0);
    void s.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }).catch(() => undefined);
    assert.equal(await closedWithin(s), true);

    // A session left to expire: the next request closes the connection unanswered.
    const { s: s2 } = await authenticate(await idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 5 }));
    clock.advance(5001);
    void s2.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false }).catch(() => undefined);
    assert.equal(await closedWithin(s2), true);
  });

  it('re-authentication may not change the principal', async () => {
    const { s } = await authenticate(await idp.sign({ sub: 'alice', iat: nowS(), exp: nowS() + 60 }));
    clock.advance(2000);
    await s.send(17, 1, { mechanism: 'OAUTHBEARER' });
    const r = await s.send(36, 2, { authBytes: bearer(await idp.sign({ sub: 'mallory', iat: nowS(), exp: nowS() + 60 })) });
    assert.deepEqual(
      { errorCode: r.errorCode, errorMessage: r.errorMessage },
      { errorCode: 58, errorMessage: 'Cannot change principals during re-authentication from User.alice: User.mallory' },
    );
  });
});

describe('connections.max.reauth.ms with PLAIN', () => {
  const clock = new ManualClock();
  let sim: Simulator;
  let port: number;
  before(async () => {
    sim = await startSimulator({ brokers: 1, clock, saslPlainUsers: { bob: 'pw' }, connectionsMaxReauthMs: 1000 });
    port = Number(sim.bootstrapServers[0].split(':')[1]);
  });
  after(() => sim.close());

  const plain = Buffer.from('\u0000bob\u0000pw');

  it('the session lifetime is the config; one re-authentication per second at most', async () => {
    const s = await Session.open(port, 'plain');
    await s.send(17, 1, { mechanism: 'PLAIN' });
    assert.equal((await s.send(36, 2, { authBytes: plain })).sessionLifetimeMs, 1000n);
    assert.equal((await s.send(17, 1, { mechanism: 'PLAIN' })).errorCode, 0);
    assert.equal((await s.send(36, 2, { authBytes: plain })).sessionLifetimeMs, 1000n);
    clock.advance(500);
    // Within a second of the last re-authentication's start: an ordinary handshake, refused with 34.
    assert.equal((await s.send(17, 1, { mechanism: 'PLAIN' })).errorCode, 34);
    clock.advance(500);
    assert.equal((await s.send(17, 1, { mechanism: 'PLAIN' })).errorCode, 0);
    assert.equal((await s.send(36, 2, { authBytes: plain })).errorCode, 0);
    s.close();
  });

  it('without connections.max.reauth.ms a PLAIN session never expires and cannot be re-authenticated', async () => {
    const other = await startSimulator({ brokers: 1, clock, saslPlainUsers: { bob: 'pw' } });
    try {
      const s = await Session.open(Number(other.bootstrapServers[0].split(':')[1]), 'plain', { user: 'bob', password: 'pw' });
      clock.advance(10 * 3600_000);
      assert.equal((await s.send(17, 1, { mechanism: 'PLAIN' })).errorCode, 34);
      assert.equal(
        (await s.send(3, 12, { topics: [], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false })).brokers.length,
        1,
      );
      s.close();
    } finally {
      await other.close();
    }
  });
});
