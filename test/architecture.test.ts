// The import rules of .dependency-cruiser.cjs: no cycles anywhere in src/, nothing below
// src/http (the services: src/services, src/reconcile, src/plan) imports it, src/http imports
// nothing of src/kafka or src/state and only types of src/domain, src/domain imports nothing
// of src/ but src/domain, src/kafka and src/state import no service, only src/main.ts names
// the Kafka implementation, and the simulator and the gateway import nothing of each other.
// dependency-cruiser runs as its CLI, as a developer would run it (`npx depcruise src`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

const CLI = resolve('node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const CONFIG = resolve('.dependency-cruiser.cjs');

async function depcruise(cwd: string, ...paths: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, '--config', CONFIG, '--output-type', 'err', ...paths], {
      cwd,
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

test('src/ has no import cycle and no import that points the wrong way', async () => {
  const { code, out } = await depcruise(process.cwd(), 'src');
  assert.equal(code, 0, out);
  assert.match(out, /no dependency violations found/i);
});

test('the check fails on a cycle, an import of src/http from below, and an impure domain module', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'arch-'));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
    write('src/sim/a.ts', "import { b } from './b.js';\nexport const a = () => b;\n");
    write('src/sim/b.ts', "import { a } from './a.js';\nexport const b = () => a;\n");
    write('src/http/logger.ts', 'export const log = 1;\n');
    write('src/reconcile/r.ts', "import { log } from '../http/logger.js';\nexport const r = log;\n");
    write('src/services/s.ts', "import { log } from '../http/logger.js';\nexport const s = log;\n");
    write('src/kafka/k.ts', 'export const k = 1;\n');
    write('src/domain/d.ts', "import { k } from '../kafka/k.js';\nexport const d = k;\n");
    const { code, out } = await depcruise(dir, 'src');
    assert.notEqual(code, 0, out);
    assert.match(out, /no-circular/);
    assert.match(out, /nothing-below-http-imports-http/);
    assert.match(out, /services-do-not-import-http: src\/reconcile\/r\.ts/);
    assert.match(out, /services-do-not-import-http: src\/services\/s\.ts/);
    assert.match(out, /domain-is-pure/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the check fails on imports across the Kafka layer, the domain and the simulator', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'arch-'));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
    write('src/observability/logger.ts', 'export const log = 1;\n');
    write('src/domain/d.ts', "import { log } from '../observability/logger.js';\nexport const d = log;\n");
    write('src/services/service.ts', 'export const service = 1;\n');
    write('src/kafka/admin.ts', "import { service } from '../services/service.js';\nexport const admin = service;\n");
    write('src/plan/p.ts', "import { admin } from '../kafka/admin.js';\nexport const p = admin;\n");
    write('src/sim/quotas.ts', "import { d } from '../domain/d.js';\nexport const q = d;\n");
    write('src/state/s.ts', "import { q } from '../sim/quotas.js';\nexport const s = q;\n");
    const { code, out } = await depcruise(dir, 'src');
    assert.notEqual(code, 0, out);
    assert.match(out, /domain-is-pure/);
    assert.match(out, /kafka-and-state-below-services/);
    assert.match(out, /only-main-names-the-kafka-implementation/);
    assert.match(out, /sim-stands-apart/);
    assert.match(out, /gateway-does-not-import-sim/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the check fails on src/http importing src/kafka or src/state, or a value of src/domain; a type of src/domain passes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'arch-'));
  try {
    const write = (file: string, text: string) => {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext' } }));
    write('src/kafka/types.ts', 'export interface KafkaGateway { ping(): Promise<void> }\n');
    write('src/state/store.ts', 'export class StateStore {}\n');
    write('src/domain/values.ts', 'export type Value = number;\nexport const VALUE: Value = 1;\n');
    write('src/domain/types.ts', 'export type Kind = string;\nexport const KIND: Kind = "k";\n');
    write('src/domain/inline.ts', 'export type Inline = string;\nexport const INLINE: Inline = "i";\n');
    write('src/services/s.ts', "import type { KafkaGateway } from '../kafka/types.js';\nexport type Service = { kafka: KafkaGateway };\n");
    // A type-only import of src/kafka is refused too: the services export the types http needs.
    write('src/http/routes/a.ts', "import type { KafkaGateway } from '../../kafka/types.js';\nexport type A = KafkaGateway;\n");
    write('src/http/routes/b.ts', "import { StateStore } from '../../state/store.js';\nexport const b = new StateStore();\n");
    write('src/http/routes/c.ts', "import { VALUE } from '../../domain/values.js';\nexport const c = VALUE;\n");
    // Types of src/domain (both spellings of a type-only import) and the services are fine.
    write(
      'src/http/routes/d.ts',
      "import type { Kind } from '../../domain/types.js';\nimport { type Inline } from '../../domain/inline.js';\nimport type { Service } from '../../services/s.js';\nexport type D = [Kind, Inline, Service];\n",
    );
    const { code, out } = await depcruise(dir, 'src');
    assert.notEqual(code, 0, out);
    assert.match(out, /http-imports-services-only: src\/http\/routes\/a\.ts → src\/kafka\/types\.ts/);
    assert.match(out, /http-imports-services-only: src\/http\/routes\/b\.ts → src\/state\/store\.ts/);
    assert.match(out, /http-imports-only-types-of-domain: src\/http\/routes\/c\.ts → src\/domain\/values\.ts/);
    assert.doesNotMatch(out, /routes\/d\.ts/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
