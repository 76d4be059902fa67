import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseWorkerThread, parseWorkerThreadSetting, WORKER_THREAD_MIN_PARTITIONS } from '../../src/worker/choice.js';

describe('GATEWAY_WORKER_THREAD', () => {
  it('is auto by default, from the default size', () => {
    assert.deepEqual(parseWorkerThreadSetting({}), { mode: 'auto', minPartitions: WORKER_THREAD_MIN_PARTITIONS });
    assert.deepEqual(parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD: ' ' }), { mode: 'auto', minPartitions: 50_000 });
    assert.deepEqual(parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD: 'AUTO', GATEWAY_WORKER_THREAD_MIN_PARTITIONS: '1000' }), {
      mode: 'auto',
      minPartitions: 1000,
    });
  });

  it('takes on and off and their usual spellings', () => {
    for (const v of ['on', 'ON', 'true', '1']) assert.deepEqual(parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD: v }), { mode: 'on' });
    for (const v of ['off', 'False', '0']) assert.deepEqual(parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD: v }), { mode: 'off' });
  });

  it('refuses anything else, naming the setting', () => {
    assert.throws(
      () => parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD: 'yes please' }),
      /GATEWAY_WORKER_THREAD must be auto, on or off, got "yes please"/,
    );
    assert.throws(
      () => parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD_MIN_PARTITIONS: '-5' }),
      /GATEWAY_WORKER_THREAD_MIN_PARTITIONS must be an integer/,
    );
    assert.throws(() => parseWorkerThreadSetting({ GATEWAY_WORKER_THREAD_MIN_PARTITIONS: '5e4' }), /GATEWAY_WORKER_THREAD_MIN_PARTITIONS/);
  });
});

describe('chooseWorkerThread', () => {
  const auto = { mode: 'auto', minPartitions: 50_000 } as const;

  it('auto: the worker from the threshold up, the HTTP thread below it', () => {
    assert.deepEqual(chooseWorkerThread(auto, 50_000), {
      workerThread: true,
      reason: 'auto: the cluster has 50,000 partitions (at least 50,000)',
    });
    assert.deepEqual(chooseWorkerThread(auto, 200_000).workerThread, true);
    assert.deepEqual(chooseWorkerThread(auto, 49_999), {
      workerThread: false,
      reason: 'auto: the cluster has 49,999 partitions (fewer than 50,000)',
    });
    assert.equal(chooseWorkerThread(auto, 0).workerThread, false);
  });

  it('auto: the HTTP thread when the size is unknown, and says so', () => {
    const c = chooseWorkerThread(auto, null);
    assert.equal(c.workerThread, false);
    assert.match(c.reason, /could not be read at startup/);
  });

  it('auto: the embedded demo stays on the HTTP thread, whatever the threshold', () => {
    assert.deepEqual(chooseWorkerThread(auto, 'embedded'), {
      workerThread: false,
      reason: 'auto: the cluster is the embedded demo (fewer than 50,000)',
    });
    assert.equal(chooseWorkerThread({ mode: 'auto', minPartitions: 0 }, 'embedded').workerThread, false);
    assert.equal(chooseWorkerThread({ mode: 'on' }, 'embedded').workerThread, true);
  });

  it('on and off whatever the size', () => {
    for (const n of [null, 0, 10_000_000]) {
      assert.equal(chooseWorkerThread({ mode: 'on' }, n).workerThread, true);
      assert.equal(chooseWorkerThread({ mode: 'off' }, n).workerThread, false);
    }
  });
});
