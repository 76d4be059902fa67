// The contract lints clean: Redocly's `recommended` rules (redocly.yaml) and Spectral's
// `spectral:oas` ruleset (.spectral.yaml), with zero warnings, not just zero errors.
// Both run as their CLIs from node_modules, as `npx redocly lint` / `npx spectral lint` would.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { test } from 'node:test';

const REDOCLY = resolve('node_modules/@redocly/cli/bin/cli.js');
const SPECTRAL = resolve('node_modules/@stoplight/spectral-cli/dist/index.js');
// No telemetry or update check: CI reaches the npm registry only.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, args, { cwd, env, maxBuffer: 32 << 20 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

async function redocly(cwd: string): Promise<{ errors: number; warnings: number; out: string }> {
  const r = await run([REDOCLY, 'lint', 'openapi.yaml', '--format', 'json'], cwd);
  const json = r.stdout.slice(r.stdout.indexOf('{'));
  const { totals } = JSON.parse(json) as { totals: { errors: number; warnings: number } };
  return { ...totals, out: json };
}

async function spectral(cwd: string): Promise<{ problems: { code: string; severity: number; path: string[] }[]; out: string }> {
  const r = await run([SPECTRAL, 'lint', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet', 'openapi.yaml'], cwd);
  const text = r.stdout.trim();
  return { problems: text ? JSON.parse(text) : [], out: text + r.stderr };
}

/** A scratch copy of the contract and both rulesets, to show that the linters do fail. */
function scratch(edit: (spec: string) => string): string {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  for (const f of ['redocly.yaml', '.spectral.yaml']) cpSync(f, join(dir, f));
  writeFileSync(join(dir, 'openapi.yaml'), edit(readFileSync('openapi.yaml', 'utf8')));
  return dir;
}

test('Redocly (recommended): no errors, no warnings', async () => {
  const r = await redocly(process.cwd());
  assert.deepEqual({ errors: r.errors, warnings: r.warnings }, { errors: 0, warnings: 0 }, r.out);
});

test('Spectral (spectral:oas): no errors, no warnings', async () => {
  const r = await spectral(process.cwd());
  assert.deepEqual(
    r.problems.map((p) => `${p.code} at ${p.path.join('.')}`),
    [],
    r.out,
  );
});

test('both linters report a warning-level problem (an operation without a description)', async () => {
  const dir = scratch((spec) => spec.replace(/\n(\s+)description: \|\n\s+Liveness probe\.[^\n]*\n(\s+[^\n]*\n)*?(?=\s+responses:)/, '\n'));
  try {
    assert.doesNotMatch(readFileSync(join(dir, 'openapi.yaml'), 'utf8'), /Liveness probe\./, 'the edit applied');
    const s = await spectral(dir);
    assert.ok(
      s.problems.some((p) => p.code === 'operation-description'),
      s.out,
    );
    const spec = readFileSync(join(dir, 'openapi.yaml'), 'utf8').replace(
      /\n\s+'400': \{ \$ref: '#\/components\/responses\/BadRequest' \}\n(?= {2}\/readyz:)/,
      '\n',
    );
    writeFileSync(join(dir, 'openapi.yaml'), spec);
    const r = await redocly(dir);
    assert.ok(r.warnings > 0, r.out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
