// The sliced validation of large POST /reassignments bodies (src/http/large-body-validation.ts):
// checkTarget accepts exactly what openapi.yaml's ReassignmentTarget accepts (held to ajv and to
// the schema as written), and the validator wrapped by it answers every body as it did alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import express, { type ErrorRequestHandler } from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { checkTarget, validateLargeArraysInSlices } from '../../src/http/large-body-validation.js';
import { loadSpec } from '../../src/http/spec.js';
import { requestErrorToProblem, validationMiddleware } from '../../src/http/validation.js';

const schemas = (loadSpec().document.components as { schemas: Record<string, any> }).schemas;

describe('checkTarget', () => {
  it('was written for the schemas openapi.yaml has (change both together)', () => {
    assert.deepEqual(schemas.ReassignmentTarget, {
      type: 'object',
      additionalProperties: false,
      required: ['topic', 'partition', 'replicas'],
      properties: {
        topic: { $ref: '#/components/schemas/TopicName' },
        partition: { type: 'integer', minimum: 0, maximum: 2147483647 },
        replicas: { type: 'array', maxItems: 1000, items: { $ref: '#/components/schemas/BrokerId' } },
        log_dirs: { type: 'array', maxItems: 1000, items: { type: 'string', maxLength: 4096 } },
      },
    });
    assert.deepEqual(schemas.TopicName, { type: 'string', pattern: '^(?!\\.{1,2}$)[a-zA-Z0-9._-]{1,249}$', examples: ['orders'] });
    assert.deepEqual(schemas.BrokerId, { type: 'integer', minimum: 0, maximum: 2147483647 });
    for (const where of [schemas.ReassignmentRequest.properties.partitions, schemas.ReassignmentFileInput.properties.partitions]) {
      assert.deepEqual(where, { type: 'array', maxItems: 100000, items: { $ref: '#/components/schemas/ReassignmentTarget' } });
    }
  });

  it('agrees with ajv on ReassignmentTarget', () => {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    ajv.addSchema({ $id: 'spec', components: { schemas } });
    const valid = ajv.compile({ $ref: 'spec#/components/schemas/ReassignmentTarget' });
    // Mostly valid values, with every kind of invalid one now and then.
    const often = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<unknown>) =>
      fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: bad });
    const int = often(fc.nat(5), fc.constantFrom(-1, 2147483647, 2147483648, 1.5, -0, 1e21, '1', null));
    const topic = often(
      fc.constantFrom('t', 'orders.v1', '_-', 'x'.repeat(249)),
      fc.oneof(fc.constantFrom('.', '..', '...', 'a b', 'é', 'x'.repeat(250), ''), fc.string({ maxLength: 5 }), int),
    );
    const dirs = often(
      fc.array(
        often(fc.constantFrom('any', '/d', 'x'.repeat(4096), '😀'.repeat(4096)), fc.constantFrom('x'.repeat(4097), '😀'.repeat(4097), 1)),
        { maxLength: 3 },
      ),
      fc.constantFrom(Array(1001).fill('any'), 'any', null),
    );
    const replicas = often(fc.array(int, { maxLength: 3 }), fc.constantFrom(Array(1000).fill(1), Array(1001).fill(1), 1, null));
    const target = fc.oneof(
      fc.record(
        { topic, partition: int, replicas, log_dirs: dirs, extra: fc.constant(1) },
        { requiredKeys: ['topic', 'partition', 'replicas'] },
      ),
      fc.record({ topic, partition: int, replicas, log_dirs: dirs }, { requiredKeys: [] }),
      fc.constantFrom(null, [], 'x', 1, JSON.parse('{"__proto__":1,"topic":"t","partition":0,"replicas":[]}')),
    );
    let accepted = 0;
    fc.assert(
      fc.property(target, (t) => {
        assert.equal(checkTarget(t), valid(t), JSON.stringify(t).slice(0, 300));
        if (valid(t)) accepted++;
      }),
      { numRuns: 5000 },
    );
    assert.ok(accepted > 500, `${accepted} valid targets generated`);
  });
});

describe('validateLargeArraysInSlices', () => {
  const spec = loadSpec();
  const errors: ErrorRequestHandler = (err, req, res, _next) => {
    const p = requestErrorToProblem(err, req.path);
    res.status(p?.problem.status ?? 500).json(p?.problem ?? { message: String(err) });
  };
  const app = (wrap: boolean) =>
    express()
      .use(express.json({ limit: '32mb' }))
      .use(
        wrap
          ? validateLargeArraysInSlices(validationMiddleware(spec, false), { minItems: 3, sliceMs: 0 })
          : validationMiddleware(spec, false),
      )
      .post('/reassignments', (req, res) => void res.json({ body: req.body as unknown }))
      .use(errors);
  const whole = app(false);
  const sliced = app(true);

  const target = fc.record({ topic: fc.constantFrom('t', 'u.v'), partition: fc.nat(50), replicas: fc.array(fc.nat(5), { maxLength: 3 }) });
  const bad = fc.constantFrom<unknown>(
    { topic: '..', partition: 0, replicas: [] },
    { topic: 't', partition: -1, replicas: [] },
    { topic: 't', partition: 0 },
    { topic: 't', partition: 0, replicas: [], x: 1 },
    'x',
    null,
  );
  const rows = fc
    .tuple(fc.array(target, { minLength: 3, maxLength: 12 }), fc.option(fc.tuple(bad, fc.nat()), { freq: 2 }))
    .map(([xs, b]) => {
      if (b) xs.splice(b[1] % (xs.length + 1), 0, b[0] as never);
      return xs;
    });
  const envelope = fc.record(
    {
      version: fc.constantFrom<unknown>(1, 0, -1, 'x'),
      throttle: fc.constantFrom<unknown>(1024, 1, null, 'x'),
      validateOnly: fc.constantFrom<unknown>(true, 'yes'),
      concurrency: fc.constantFrom<unknown>({ perBroker: 2 }, { perBroker: 0 }),
      order: fc.constantFrom<unknown>('size-asc', 'sideways'),
      bogus: fc.constant(1),
    },
    { requiredKeys: [] },
  );
  const bodies = fc.oneof(
    fc.tuple(rows, envelope).map(([partitions, env]) => ({ ...env, partitions })),
    fc.tuple(rows, envelope, fc.boolean()).map(([partitions, env, withBoth]) => ({
      ...env,
      ...(withBoth && { partitions: [] }),
      plan: { reassignment: { version: 1, partitions }, partitions: [{ any: 'thing' }] },
    })),
  );

  it('answers every body as the validator alone does, and hands the route the same body', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const [x, y] = [await request(whole).post('/reassignments').send(body), await request(sliced).post('/reassignments').send(body)];
        assert.equal(y.status, x.status, JSON.stringify(body).slice(0, 300));
        assert.equal(y.text, x.text, JSON.stringify(body).slice(0, 300));
      }),
      { numRuns: 300 },
    );
  });

  it('hands the route the whole body when it is valid (both forms), and refuses 100,001 items as the validator does', async () => {
    const partitions = Array.from({ length: 20 }, (_, i) => ({
      topic: 't',
      partition: i,
      replicas: [1, 2],
      ...(i % 2 === 0 && { log_dirs: ['any', '/d'] }),
    }));
    for (const body of [
      { version: 1, partitions, throttle: 2048 },
      { plan: { reassignment: { version: 1, partitions }, before: {} }, validateOnly: true },
    ]) {
      const [x, y] = [await request(whole).post('/reassignments').send(body), await request(sliced).post('/reassignments').send(body)];
      assert.equal(x.status, 200, x.text);
      assert.equal(y.text, x.text);
      assert.deepEqual(y.body.body, body);
    }
    const tooMany = { partitions: Array.from({ length: 100_001 }, (_, i) => ({ topic: 't', partition: i, replicas: [1] })) };
    const [x, y] = [await request(whole).post('/reassignments').send(tooMany), await request(sliced).post('/reassignments').send(tooMany)];
    assert.equal(x.status, 400);
    assert.equal(y.text, x.text);
  });

  it('leaves other routes and small bodies to the validator', async () => {
    const small = { partitions: [{ topic: 't', partition: 0, replicas: [1] }], bogus: 1 };
    const [x, y] = [await request(whole).post('/reassignments').send(small), await request(sliced).post('/reassignments').send(small)];
    assert.equal(y.status, 400);
    assert.equal(y.text, x.text);
    const other = await request(sliced).post('/topics').send({ name: 'a', partitions: 'x' });
    assert.equal(other.status, 400);
  });
});
