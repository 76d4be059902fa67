// The transport's retry loop draws each backoff from the injected random source (GatewayHooks
// .random): one draw per retry, and the retries it allows are the configured ones. Against a
// closed port, so every attempt is a refused connection (retriable); no timing is asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { createKafkaGateway } from '../../src/kafka/admin.js';
import { parseKafkaConfig } from '../../src/kafka/config.js';
import { KafkaRequestError } from '../../src/kafka/errors.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test('each retry waits a backoff drawn from the injected random source', async () => {
  const port = await closedPort();
  const draws: number[] = [];
  const random = () => {
    draws.push(draws.length);
    return 0.25;
  };
  const gw = createKafkaGateway(
    parseKafkaConfig({
      KAFKA_BOOTSTRAP_SERVERS: `127.0.0.1:${port}`,
      KAFKA_RETRIES: '3',
      KAFKA_RETRY_BACKOFF_MS: '1',
      KAFKA_RETRY_BACKOFF_MAX_MS: '4',
      KAFKA_CONNECT_TIMEOUT_MS: '1000',
    }),
    { random },
  );
  try {
    await assert.rejects(gw.listTopics(), (err: unknown) => err instanceof KafkaRequestError && err.kind === 'unavailable');
    assert.equal(draws.length, 3, 'one draw per retry (KAFKA_RETRIES=3), none after the last attempt');
  } finally {
    await gw.close();
  }
});
