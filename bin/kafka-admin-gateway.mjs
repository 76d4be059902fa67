#!/usr/bin/env node
// The CLI's launcher (package.json "bin": kafka-admin-gateway and kag). In a source checkout
// (a fresh clone after `npm ci`) it runs src/cli/main.ts through tsx, so it is never stale;
// where there is no source (an installed package, the Docker image) it runs the compiled
// dist/cli/main.js that `npm run build` writes.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/cli/main.js', import.meta.url);
let tsx = null;
if (existsSync(source)) tsx = await import('tsx/esm/api').catch(() => null);
if (tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write(
    'kafka-admin-gateway: neither src/cli/main.ts with tsx (run npm ci) nor dist/cli/main.js (run npm run build) is there.\n',
  );
  process.exit(2);
}
