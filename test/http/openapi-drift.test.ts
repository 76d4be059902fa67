// src/http/openapi-types.ts is generated from openapi.yaml and committed. This fails
// when someone edits the spec without `npm run gen:types` (or hand-edits the output).
// It runs the very CLI that gen:types runs, so the comparison is byte-for-byte.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { it } from 'node:test';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

it('src/http/openapi-types.ts is up to date with openapi.yaml (run `npm run gen:types`)', async () => {
  const pkgJson = createRequire(import.meta.url).resolve('openapi-typescript/package.json', { paths: [root] });
  const cli = join(dirname(pkgJson), 'bin', 'cli.js');
  const dir = await mkdtemp(join(tmpdir(), 'openapi-drift-'));
  try {
    const out = join(dir, 'openapi-types.ts');
    await promisify(execFile)(process.execPath, [cli, 'openapi.yaml', '-o', out], { cwd: root });
    const [fresh, committed] = await Promise.all([readFile(out, 'utf8'), readFile(join(root, 'src/http/openapi-types.ts'), 'utf8')]);
    assert.ok(fresh === committed, 'src/http/openapi-types.ts is stale: run `npm run gen:types`');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
