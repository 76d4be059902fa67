// Every operation of openapi.yaml is documented with examples, and every example is valid
// against the schema it illustrates (JSON Schema 2020-12, as OpenAPI 3.1 defines it, with
// ajv). Examples of a success response with a body are required per media type; a request
// body needs one; an operation without a body but with parameters needs a parameter example.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { loadSpec } from '../../src/http/spec.js';

const require = createRequire(import.meta.url);
const Ajv2020 = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js').default;
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;

type Json = Record<string, any>;
const spec = structuredClone(loadSpec().document) as Json;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);
ajv.addSchema(spec, 'openapi.json');

const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
function resolve(node: Json): Json {
  let n = node;
  while (n && typeof n.$ref === 'string') {
    n = n.$ref
      .slice(2)
      .split('/')
      .map((p: string) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce((o: Json, k: string) => o[k], spec);
  }
  return n;
}
/** JSON pointer of where a $ref-or-inline node really lives. */
function home(pointer: string, node: Json): string {
  return typeof node?.$ref === 'string' ? node.$ref.slice(1) : pointer;
}

interface Example {
  where: string;
  value: unknown;
  schemaPointer: string;
}

/** Examples of one media type object (`example` or `examples`), with the pointer of its schema. */
function mediaExamples(pointer: string, media: Json): Example[] {
  const out: Example[] = [];
  const schemaPointer = `${pointer}/schema`;
  if ('example' in media) out.push({ where: `${pointer}/example`, value: media.example, schemaPointer });
  for (const [name, ex] of Object.entries<Json>(media.examples ?? {})) {
    out.push({ where: `${pointer}/examples/${name}`, value: resolve(ex).value, schemaPointer });
  }
  return out;
}

function operations(): { id: string; pointer: string; op: Json; pathParams: Json[] }[] {
  const out = [];
  for (const [path, item] of Object.entries<Json>(spec.paths)) {
    for (const m of METHODS) {
      if (item[m])
        out.push({
          id: item[m].operationId as string,
          pointer: `/paths/${escape(path)}/${m}`,
          op: item[m],
          pathParams: item.parameters ?? [],
        });
    }
  }
  return out;
}

function allExamples(): Example[] {
  const out: Example[] = [];
  for (const { pointer, op, pathParams } of operations()) {
    const params = [
      ...pathParams.map((p, i) => [p, `/paths/${pointer.split('/')[2]}/parameters/${i}`] as const),
      ...(op.parameters ?? []).map((p: Json, i: number) => [p, `${pointer}/parameters/${i}`] as const),
    ];
    for (const [p, at] of params) {
      const where = home(at, p);
      const param = resolve(p);
      if ('example' in param) out.push({ where: `${where}/example`, value: param.example, schemaPointer: `${where}/schema` });
    }
    if (op.requestBody) {
      const at = home(`${pointer}/requestBody`, op.requestBody);
      for (const [type, media] of Object.entries<Json>(resolve(op.requestBody).content))
        out.push(...mediaExamples(`${at}/content/${escape(type)}`, media));
    }
    for (const [status, r] of Object.entries<Json>(op.responses)) {
      const at = home(`${pointer}/responses/${status}`, r);
      for (const [type, media] of Object.entries<Json>(resolve(r).content ?? {}))
        out.push(...mediaExamples(`${at}/content/${escape(type)}`, media));
    }
  }
  // Each shared example once.
  return [...new Map(out.map((e) => [e.where, e])).values()];
}

test('every operation has a description', () => {
  const missing = operations()
    .filter(({ op }) => !(typeof op.description === 'string' && op.description.trim()))
    .map((o) => o.id);
  assert.deepEqual(missing, []);
});

test('every request body and every success response body has an example, per media type', () => {
  const missing: string[] = [];
  for (const { id, op, pathParams, pointer } of operations()) {
    if (op.requestBody) {
      for (const [type, media] of Object.entries<Json>(resolve(op.requestBody).content)) {
        if (mediaExamples(pointer, media).length === 0) missing.push(`${id} request ${type}`);
      }
    } else if ([...pathParams, ...(op.parameters ?? [])].length > 0) {
      if (![...pathParams, ...(op.parameters ?? [])].some((p) => 'example' in resolve(p))) missing.push(`${id} parameters`);
    }
    let responseExamples = 0;
    for (const [status, r] of Object.entries<Json>(op.responses)) {
      for (const [type, media] of Object.entries<Json>(resolve(r).content ?? {})) {
        const n = mediaExamples(pointer, media).length;
        responseExamples += n;
        if (status.startsWith('2') && n === 0) missing.push(`${id} ${status} ${type}`);
      }
    }
    if (responseExamples === 0) missing.push(`${id}: no response example at all`);
  }
  assert.deepEqual(missing, []);
});

test('every example is valid against its schema', () => {
  const examples = allExamples();
  assert.ok(examples.length >= 50, `only ${examples.length} examples found`);
  const invalid: string[] = [];
  for (const e of examples) {
    const validate = ajv.compile({ $ref: `openapi.json#${e.schemaPointer}` });
    if (!validate(e.value)) invalid.push(`${e.where}: ${ajv.errorsText(validate.errors)}`);
  }
  assert.deepEqual(invalid, []);
});

test('the check rejects an example that does not match its schema (it can fail)', () => {
  const validate = ajv.compile({ $ref: 'openapi.json#/components/schemas/ReassignmentRequest' });
  assert.equal(validate(resolve(spec.components.examples.ReassignmentRequest).value), true);
  assert.equal(validate({ partitions: [{ topic: 'orders', partition: 0, replicas: [1, 2] }], throttle: 10 }), false, 'throttle below 1024');
  assert.equal(validate({ partitions: [], surprise: true }), false, 'unknown member');
});
