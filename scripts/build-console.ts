// `npm run build`, second half: bundles the web console (src/console) into dist/console, where
// the compiled gateway (dist/http/console.js) serves it from. `npm start` (from source) bundles
// the same files in memory at startup instead, so this is only needed for dist/ and Docker.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleConsole } from '../src/http/console.js';

const src = fileURLToPath(new URL('../src/console/', import.meta.url));
const out = fileURLToPath(new URL('../dist/console/', import.meta.url));
const files = await bundleConsole(src);
mkdirSync(out, { recursive: true });
for (const [name, body] of Object.entries(files)) writeFileSync(`${out}${name}`, body);
process.stdout.write(
  `console: ${Object.entries(files)
    .map(([n, b]) => `${n} ${(b.length / 1024).toFixed(1)} KiB`)
    .join(', ')} -> dist/console/\n`,
);
