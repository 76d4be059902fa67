import { describe, it } from 'node:test';
import assert from 'node:assert/strict';

import { formatReassignmentFile, parseReassignmentRequest, type FieldError } from '../../../src/domain/reassignment/index.js';

function ok(body: unknown) {
  const r = parseReassignmentRequest(body);
  assert.ok(r.ok, `expected ok, got ${JSON.stringify(!r.ok && r.errors)}`);
  return r.request;
}

function fail(body: unknown): readonly FieldError[] {
  const r = parseReassignmentRequest(body);
  assert.ok(!r.ok, 'expected errors');
  return r.errors;
}

describe('parseReassignmentRequest: the gateway body', () => {
  it('takes every field', () => {
    assert.deepEqual(
      ok({
        partitions: [{ topic: 't', partition: 0, replicas: [2, 3] }],
        throttle: 1048576,
        autoRemoveThrottle: false,
        validateOnly: true,
        addToExisting: true,
        concurrency: { perBroker: 2 },
        order: 'size-desc',
        safety: { holdOn: ['offline'], resumeAfterPasses: 2 },
      }),
      {
        partitions: [{ topic: 't', partition: 0, replicas: [2, 3] }],
        throttle: 1048576,
        autoRemoveThrottle: false,
        validateOnly: true,
        addToExisting: true,
        concurrency: { perBroker: 2, cluster: null },
        order: 'size-desc',
        format: 'gateway',
        // finishBy and throttleBounds exclude a throttle: null here (deadline-request tests take them)
        finishBy: null,
        throttleBounds: null,
        safety: { holdOn: ['offline'], resumeAfterPasses: 2 },
      },
    );
  });

  it('concurrency: integers ≥ 1 or null per level; order: one of three', () => {
    const bad = parseReassignmentRequest({
      partitions: [{ topic: 't', partition: 0, replicas: [1] }],
      concurrency: { perBroker: 0, cluster: 2.5, other: 1 },
      order: 'random',
    });
    assert.equal(bad.ok, false);
    if (!bad.ok)
      assert.deepEqual(bad.errors.map((e) => e.path).sort(), [
        '/concurrency/cluster',
        '/concurrency/other',
        '/concurrency/perBroker',
        '/order',
      ]);
    const none = parseReassignmentRequest({ partitions: [{ topic: 't', partition: 0, replicas: [1] }] });
    assert.ok(none.ok && none.request.concurrency === null && none.request.order === null);
  });

  it('defaults: no throttle, autoRemoveThrottle true, validateOnly false, addToExisting false', () => {
    const r = ok({ partitions: [{ topic: 't', partition: 0, replicas: [1] }] });
    assert.deepEqual([r.throttle, r.autoRemoveThrottle, r.validateOnly, r.addToExisting], [null, true, false, false]);
  });

  it('keeps duplicates and order for validateReassignment to judge; an empty list parses', () => {
    const partitions = [
      { topic: 'b', partition: 1, replicas: [1, 1] },
      { topic: 'a', partition: 0, replicas: [] },
      { topic: 'b', partition: 1, replicas: [2] },
    ];
    assert.deepEqual(ok({ partitions }).partitions, partitions);
    assert.deepEqual(ok({ partitions: [] }).partitions, []);
  });

  it('throttle must be an integer >= 1024 bytes/s', () => {
    assert.deepEqual(fail({ partitions: [], throttle: 1023 }), [
      { path: '/throttle', code: 'OUT_OF_RANGE', message: 'throttle is in bytes per second and must be at least 1024; got 1023.' },
    ]);
    assert.equal(fail({ partitions: [], throttle: 2048.5 })[0].code, 'INVALID_TYPE');
    assert.equal(fail({ partitions: [], throttle: '2048' })[0].code, 'INVALID_TYPE');
    assert.equal(ok({ partitions: [], throttle: 1024 }).throttle, 1024);
    assert.equal(ok({ partitions: [], throttle: null }).throttle, null);
  });

  it('reports every field problem with a JSON pointer', () => {
    const errs = fail({
      partitions: [{ topic: '', partition: -1, replicas: [1, 'x', 2 ** 31] }, 'nope', { partition: 1.5 }],
      validateOnly: 'yes',
    });
    assert.deepEqual(
      errs.map((e) => [e.path, e.code]),
      [
        ['/partitions/0/topic', 'INVALID_TYPE'],
        ['/partitions/0/partition', 'OUT_OF_RANGE'],
        ['/partitions/0/replicas/1', 'INVALID_TYPE'],
        ['/partitions/0/replicas/2', 'OUT_OF_RANGE'],
        ['/partitions/1', 'INVALID_TYPE'],
        ['/partitions/2/topic', 'REQUIRED'],
        ['/partitions/2/partition', 'INVALID_TYPE'],
        ['/partitions/2/replicas', 'REQUIRED'],
        ['/validateOnly', 'INVALID_TYPE'],
      ],
    );
  });

  it('the body must be an object with partitions', () => {
    for (const body of [null, [], 'x', 3]) assert.equal(fail(body)[0].code, 'INVALID_BODY');
    assert.deepEqual(
      fail({}).map((e) => [e.path, e.code]),
      [['/partitions', 'REQUIRED']],
    );
    assert.deepEqual(
      fail({ partitions: {} }).map((e) => [e.path, e.code]),
      [['/partitions', 'INVALID_TYPE']],
    );
  });
});

describe('parseReassignmentRequest: the kafka-reassign-partitions.sh file', () => {
  const file = {
    version: 1,
    partitions: [
      { topic: 'foo', partition: 0, replicas: [1, 2, 3], log_dirs: ['any', 'any', 'any'] },
      { topic: 'foo', partition: 1, replicas: [3, 4, 5] },
    ],
  };

  it('is accepted as is', () => {
    const r = ok(file);
    assert.equal(r.format, 'kafka-reassign-partitions');
    assert.deepEqual(r.partitions, [
      { topic: 'foo', partition: 0, replicas: [1, 2, 3] },
      { topic: 'foo', partition: 1, replicas: [3, 4, 5] },
    ]);
    assert.equal(r.throttle, null);
  });

  it("accepts the gateway's options beside it", () => {
    assert.equal(ok({ ...file, throttle: 5000 }).throttle, 5000);
  });

  it('an absolute log dir is kept, paired with the replicas (an intra-broker move); all "any" leaves none', () => {
    const r = ok({
      version: 1,
      partitions: [
        { topic: 'foo', partition: 0, replicas: [1, 2], log_dirs: ['any', '/data/b'] },
        { topic: 'foo', partition: 1, replicas: [1, 2], log_dirs: ['any', 'any'] },
      ],
    });
    assert.deepEqual(r.partitions, [
      { topic: 'foo', partition: 0, replicas: [1, 2], logDirs: ['any', '/data/b'] },
      { topic: 'foo', partition: 1, replicas: [1, 2] },
    ]);
  });

  it('a log dir that is neither "any" nor an absolute path is refused', () => {
    const [e] = fail({ version: 1, partitions: [{ topic: 'foo', partition: 0, replicas: [1, 2], log_dirs: ['any', 'data/b'] }] });
    assert.equal(e.path, '/partitions/0/log_dirs/1');
    assert.equal(e.code, 'LOG_DIR_NOT_ABSOLUTE');
    assert.match(e.message, /"data\/b"/);
  });

  it("log_dirs of another size than replicas: Kafka's message", () => {
    const [e] = fail({ version: 1, partitions: [{ topic: 'foo', partition: 0, replicas: [1, 2], log_dirs: ['any'] }] });
    assert.equal(e.code, 'LOG_DIRS_SIZE_MISMATCH');
    assert.equal(e.message, 'Size of replicas list [1,2] is different from size of log dirs list ["any"] for partition foo-0.');
  });

  it('only version 1 exists', () => {
    const [e] = fail({ version: 2, partitions: [] });
    assert.deepEqual([e.path, e.code], ['/version', 'UNSUPPORTED_VERSION']);
  });
});

describe('formatReassignmentFile', () => {
  it("writes Kafka's format: sorted by topic then partition, log_dirs any, keys in Kafka's order", () => {
    const f = formatReassignmentFile([
      { topic: 'b', partition: 10, replicas: [3, 1] },
      { topic: 'b', partition: 2, replicas: [1] },
      { topic: 'a', partition: 0, replicas: [0, 1, 2] },
    ]);
    assert.equal(
      JSON.stringify(f),
      '{"version":1,"partitions":[' +
        '{"topic":"a","partition":0,"replicas":[0,1,2],"log_dirs":["any","any","any"]},' +
        '{"topic":"b","partition":2,"replicas":[1],"log_dirs":["any"]},' +
        '{"topic":"b","partition":10,"replicas":[3,1],"log_dirs":["any","any"]}]}',
    );
  });

  it('round-trips through parseReassignmentRequest', () => {
    const assignments = [
      { topic: 'a', partition: 0, replicas: [0, 1, 2] },
      { topic: 'b', partition: 3, replicas: [4] },
    ];
    assert.deepEqual(ok(JSON.parse(JSON.stringify(formatReassignmentFile(assignments)))).partitions, assignments);
  });
});
