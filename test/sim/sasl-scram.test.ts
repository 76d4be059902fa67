// SASL SCRAM-SHA-256/512 in the simulator: the server side checked against RFC 7677's
// test vector, then end to end with the gateway's Kafka layer (@platformatic/kafka
// configured from KAFKA_SASL_* variables): right credentials, wrong password, unknown
// user, and the mechanisms advertised by SaslHandshake.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';
import { ScramServerSession, scramCredential } from '../../src/sim/sasl/scram.js';
import { startSimulator, type Simulator } from '../../src/sim/index.js';
import { request } from './wire.js';

describe('ScramServerSession (RFC 7677 section 3 test vector)', () => {
  const salt = Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64');
  const credential = scramCredential('SCRAM-SHA-256', 'pencil', 4096, salt);
  const newSession = () =>
    new ScramServerSession(
      'SCRAM-SHA-256',
      (u) => (u === 'user' ? credential : undefined),
      () => '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
    );

  it('answers server-first and, for the right proof, the RFC server signature', () => {
    const s = newSession();
    const first = s.step(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
    assert.equal(first.kind, 'continue');
    assert.equal(
      first.kind === 'continue' && first.response.toString(),
      'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
    );
    const final = s.step(
      Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ='),
    );
    assert.deepEqual(final.kind === 'done' && { user: final.user, v: final.response.toString() }, {
      user: 'user',
      v: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
    });
  });

  it('refuses a wrong proof, an unknown user, a wrong nonce and malformed messages', () => {
    const wrongProof = newSession();
    wrongProof.step(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
    const r = wrongProof.step(
      Buffer.from('c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='),
    );
    assert.equal(r.kind, 'failed');

    assert.equal(newSession().step(Buffer.from('n,,n=mallory,r=abc')).kind, 'failed');

    const wrongNonce = newSession();
    wrongNonce.step(Buffer.from('n,,n=user,r=rOprNGfwEbeRWgbNEkqO'));
    assert.equal(wrongNonce.step(Buffer.from('c=biws,r=other,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=')).kind, 'failed');

    for (const bad of ['', 'garbage', 'p=tls-unique,,n=user,r=x', 'n,,n=us=er,r=x', 'n,,r=x', 'n,a=admin,n=user,r=x']) {
      assert.equal(newSession().step(Buffer.from(bad)).kind, 'failed', bad);
    }
  });
});

describe('gateway Kafka layer <-> simulator over SASL', () => {
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({ brokers: 2, saslScramUsers: { alice: 'alice-secret' }, saslPlainUsers: { bob: 'bob-secret' } });
  });
  after(() => sim.close());

  const gateway = (mechanism: string, username: string, password: string) =>
    createKafkaGateway(
      parseKafkaConfig({
        KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
        KAFKA_SASL_MECHANISM: mechanism,
        KAFKA_SASL_USERNAME: username,
        KAFKA_SASL_PASSWORD: password,
        KAFKA_CONNECT_TIMEOUT_MS: '2000',
        KAFKA_PING_TIMEOUT_MS: '2000',
        KAFKA_RETRIES: '0',
      }),
    );

  for (const mechanism of ['SCRAM-SHA-256', 'SCRAM-SHA-512']) {
    it(`${mechanism}: the right password works, for reads and changes`, async () => {
      const kafka = gateway(mechanism, 'alice', 'alice-secret');
      try {
        await kafka.ping();
        const [created] = await kafka.createTopics([{ name: `scram-${mechanism.slice(-3)}`, partitions: 1, replicationFactor: 1 }]);
        assert.equal(created?.ok, true);
        assert.ok((await kafka.listTopics()).some((t) => t.name === `scram-${mechanism.slice(-3)}`));
      } finally {
        await kafka.close();
      }
    });

    for (const [what, user, password] of [
      ['a wrong password', 'alice', 'wrong'],
      ['an unknown user', 'mallory', 'alice-secret'],
      ['a PLAIN-only user', 'bob', 'bob-secret'],
    ] as const) {
      it(`${mechanism}: ${what} fails as SASL_AUTHENTICATION_FAILED, not retried`, async () => {
        const kafka = gateway(mechanism, user, password);
        try {
          const err = await kafka.listTopics().then(
            () => assert.fail('authenticated with bad credentials'),
            (e: unknown) => e,
          );
          assert.ok(err instanceof KafkaRequestError, String(err));
          assert.equal(err.kafka.name, 'SASL_AUTHENTICATION_FAILED', err.message);
          assert.equal(err.kind, 'unavailable');
        } finally {
          await kafka.close();
        }
      });
    }
  }

  it('PLAIN still works next to SCRAM', async () => {
    const kafka = gateway('PLAIN', 'bob', 'bob-secret');
    try {
      await kafka.ping();
    } finally {
      await kafka.close();
    }
  });

  it('SaslHandshake advertises the enabled mechanisms and refuses others', async () => {
    const port = Number(sim.bootstrapServers[0].split(':')[1]);
    const ok = await request(port, 17, 1, { mechanism: 'SCRAM-SHA-512' });
    assert.deepEqual(
      { errorCode: ok.errorCode, mechanisms: ok.mechanisms },
      { errorCode: 0, mechanisms: ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512'] },
    );
    const refused = await request(port, 17, 1, { mechanism: 'GSSAPI' });
    assert.equal(refused.errorCode, 33);
  });
});

it('a SCRAM-only cluster does not offer PLAIN', async () => {
  const sim = await startSimulator({ brokers: 1, saslScramUsers: { alice: 'x' } });
  try {
    const port = Number(sim.bootstrapServers[0].split(':')[1]);
    const res = await request(port, 17, 1, { mechanism: 'PLAIN' });
    assert.deepEqual(
      { errorCode: res.errorCode, mechanisms: res.mechanisms },
      { errorCode: 33, mechanisms: ['SCRAM-SHA-256', 'SCRAM-SHA-512'] },
    );
  } finally {
    await sim.close();
  }
});
