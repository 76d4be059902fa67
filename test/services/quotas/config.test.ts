import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_QUOTA_CONFIG, parseQuotaConfig } from '../../../src/services/quotas/config.js';

describe('parseQuotaConfig', () => {
  it('defaults: everything off', () => {
    const problems: string[] = [];
    assert.deepEqual(parseQuotaConfig({}, problems), DEFAULT_QUOTA_CONFIG);
    assert.deepEqual(problems, []);
  });

  it('reads the pattern, the pool bounds, admission and the broker window', () => {
    const problems: string[] = [];
    const c = parseQuotaConfig(
      {
        KAFKA_CLIENT_ID_PATTERN: 'kafka-admin-gateway/{principal}',
        KAFKA_CALLER_CLIENTS_MAX: '8',
        KAFKA_CALLER_CLIENT_IDLE_MS: '60000',
        GATEWAY_MUTATION_RATE: '2.5',
        GATEWAY_MUTATION_WINDOW_NUM: '5',
        KAFKA_CONTROLLER_QUOTA_WINDOW_SECONDS: '30',
        KAFKA_QUOTA_CACHE_MS: '0',
      },
      problems,
    );
    assert.deepEqual(problems, []);
    assert.equal(c.clientIdPattern, 'kafka-admin-gateway/{principal}');
    assert.deepEqual(c.callerClients, { maxClients: 8, idleMs: 60000 });
    assert.deepEqual(c.admission, { rate: 2.5, window: { windowNum: 5, windowSizeSeconds: 1 } });
    assert.equal(c.brokerWindowSeconds, 30);
    assert.equal(c.brokerQuotaCacheMs, 0);
  });

  it('lists every problem', () => {
    const problems: string[] = [];
    parseQuotaConfig(
      { KAFKA_CLIENT_ID_PATTERN: 'fixed', GATEWAY_MUTATION_RATE: '0', KAFKA_CALLER_CLIENTS_MAX: '0', GATEWAY_MUTATION_WINDOW_NUM: 'x' },
      problems,
    );
    assert.equal(problems.length, 4, problems.join('\n'));
    assert.ok(problems.some((p) => p.startsWith('KAFKA_CLIENT_ID_PATTERN')));
    assert.ok(problems.some((p) => p.startsWith('GATEWAY_MUTATION_RATE')));
  });
});
