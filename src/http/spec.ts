// Loads openapi.yaml once. The same document drives request/response validation, the
// /openapi.yaml endpoint and the route table (src/http/route-table.ts: metrics labels, access
// control, audit), so none of them can drift apart.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export interface LoadedSpec {
  /** The file as written (served verbatim: comments and ordering intact). */
  readonly text: string;
  readonly document: Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };
  readonly path: string;
}

/** Walks up from this module: works from src/http (tsx) and from dist/http (tsc build). */
export function findSpecPath(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'openapi.yaml');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('openapi.yaml not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

let cached: LoadedSpec | undefined;

export function loadSpec(): LoadedSpec {
  if (cached) return cached;
  const path = findSpecPath();
  const text = readFileSync(path, 'utf8');
  cached = { text, document: parse(text) as LoadedSpec['document'], path };
  return cached;
}
