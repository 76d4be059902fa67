// KIP-368 with a password mechanism: a broker with connections.max.reauth.ms gives SCRAM sessions
// that end; the gateway's connections re-authenticate before the end (the client library's timer at
// 0.8 of session_lifetime_ms) and keep answering, on the same connection, with no request lost.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { startSimulator } from '../../src/sim/index.js';
import type { SaslAuthenticatedEvent } from '../../src/sim/sasl/session.js';

it('SCRAM-SHA-512 sessions of 1.5 s: re-authenticated in time, requests all answered', async () => {
  const events: SaslAuthenticatedEvent[] = [];
  const sim = await startSimulator({
    brokers: 1,
    saslScramUsers: { alice: 'pw' },
    connectionsMaxReauthMs: 1500,
    onSaslAuthenticated: (e) => events.push(e),
  });
  const kafka = createKafkaGateway(
    parseKafkaConfig({
      KAFKA_BOOTSTRAP_SERVERS: sim.bootstrapServers.join(','),
      KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      KAFKA_SASL_USERNAME: 'alice',
      KAFKA_SASL_PASSWORD: 'pw',
      KAFKA_RETRIES: '0',
    }),
  );
  let calls = 0;
  try {
    const deadline = Date.now() + 15000;
    const worker = async () => {
      while (events.filter((e) => e.reauthentication).length < 3) {
        assert.ok(Date.now() < deadline, `fewer than 3 re-authentications in 15 s: ${JSON.stringify(events)}`);
        await kafka.describeCluster(); // retries off: a request lost to a re-authentication fails here
        calls++;
        await new Promise((r) => setTimeout(r, 5)); // pacing, not synchronisation
      }
    };
    await Promise.all([worker(), worker(), worker()]);
  } finally {
    await kafka.close();
    await sim.close();
  }
  assert.equal(events.filter((e) => !e.reauthentication).length, 1, 'one connection: never closed as expired');
  assert.ok(events.every((e) => e.connection === events[0].connection && e.mechanism === 'SCRAM-SHA-512' && e.sessionLifetimeMs === 1500));
  assert.ok(calls > 50, `requests: ${calls}`);
});
