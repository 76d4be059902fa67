// docs/architecture.md draws the layers as they are: every src/ folder or file it names must
// exist, and every top-level folder of src/ must be on it, so a rename or a new layer that the
// page does not show fails here instead of leaving the drawing stale.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

const DOC = 'docs/architecture.md';

/** `src/...` paths named on the page (folders end in `/` or have no extension). */
export function namedPaths(text: string): string[] {
  const found = new Set<string>();
  for (const m of text.matchAll(/\bsrc\/[A-Za-z0-9_./-]*[A-Za-z0-9_/]/g)) found.add(m[0].replace(/\/$/, ''));
  return [...found].sort();
}

test('every path docs/architecture.md names exists', () => {
  const paths = namedPaths(readFileSync(DOC, 'utf8'));
  assert.ok(paths.length > 20, `only ${paths.length} paths found on the page`);
  const missing = paths.filter((p) => !existsSync(p));
  assert.deepEqual(missing, [], `named on ${DOC} but gone: ${missing.join(', ')}`);
});

test('every top-level folder of src/ is on the page', () => {
  const named = new Set(namedPaths(readFileSync(DOC, 'utf8')));
  const folders = readdirSync('src', { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => `src/${d.name}`);
  const absent = folders.filter((f) => !named.has(f));
  assert.deepEqual(absent, [], `src/ folders the page does not show: ${absent.join(', ')}`);
});

test('the path extraction finds folders and files and ignores prose', () => {
  assert.deepEqual(namedPaths('see src/http/ and src/kafka/apis/, src/main.ts; not srcfoo/bar or xsrc/a'), [
    'src/http',
    'src/kafka/apis',
    'src/main.ts',
  ]);
});
