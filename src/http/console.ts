// The web console's static files, served by the gateway itself at `/` (no other server).
//
// Where they come from — one rule for both ways the gateway runs:
// - compiled (`npm run build`, the Docker image): dist/http/console.js looks in dist/console/,
//   where `npm run build` wrote app.js, app.css and index.html (scripts/build-console.ts);
// - from source (`npm start` runs src/main.ts with tsx): src/http/console.ts looks in
//   src/console/, finds the source (main.tsx) and bundles it in memory with esbuild at
//   startup (~0.1-0.3 s). Nothing is built at install time (no postinstall surprises, no
//   stale bundle after a `git pull`), and nothing generated lands in the tree.
// The files are held in memory (a few tens of KiB) and served with ETags.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Router } from 'express';
import { strictRouter } from './router.js';

export interface ConsoleAsset {
  body: Buffer;
  type: string;
  etag: string;
}
export interface ConsoleAssets {
  /** Keyed by URL path: '/', '/console/app.js', '/console/app.css'. */
  files: ReadonlyMap<string, ConsoleAsset>;
  origin: 'prebuilt' | 'bundled-at-start';
}

/** src/console (source) or dist/console (built), beside this module's directory. */
export const CONSOLE_DIR = fileURLToPath(new URL('../console/', import.meta.url));

const TYPES: Record<string, string> = {
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
  'index.html': 'text/html; charset=utf-8',
};

/** Bundles src/console with esbuild (a devDependency: only a source checkout needs it). */
export async function bundleConsole(srcDir = CONSOLE_DIR): Promise<Record<'index.html' | 'app.js' | 'app.css', Buffer>> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [`${srcDir}main.tsx`],
    bundle: true,
    write: false,
    outfile: 'app.js', // a name only: write is false
    format: 'esm',
    target: 'es2020',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const js = result.outputFiles.find((f) => f.path.endsWith('.js'));
  if (!js) throw new Error('esbuild produced no JavaScript for the console');
  return {
    'index.html': readFileSync(`${srcDir}index.html`),
    'app.js': Buffer.from(js.contents),
    'app.css': readFileSync(`${srcDir}app.css`),
  };
}

function toAssets(files: Record<string, Buffer>, origin: ConsoleAssets['origin']): ConsoleAssets {
  const map = new Map<string, ConsoleAsset>();
  for (const [name, body] of Object.entries(files)) {
    const asset = { body, type: TYPES[name], etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
    map.set(name === 'index.html' ? '/' : `/console/${name}`, asset);
  }
  return { files: map, origin };
}

/**
 * The console's files, or null with the reason when there are none (a compiled gateway
 * whose build skipped the console, or a source checkout without esbuild).
 */
export async function loadConsoleAssets(dir = CONSOLE_DIR): Promise<{ assets: ConsoleAssets } | { assets: null; reason: string }> {
  if (existsSync(`${dir}app.js`)) {
    const files: Record<string, Buffer> = {};
    for (const name of Object.keys(TYPES)) files[name] = readFileSync(`${dir}${name}`);
    return { assets: toAssets(files, 'prebuilt') };
  }
  if (existsSync(`${dir}main.tsx`)) {
    try {
      return { assets: toAssets(await bundleConsole(dir), 'bundled-at-start') };
    } catch (err) {
      return { assets: null, reason: `could not bundle the console from ${dir}: ${err instanceof Error ? err.message : String(err)}` };
    }
  }
  return { assets: null, reason: `no console in ${dir} (run npm run build)` };
}

// The console needs nothing from elsewhere: no CDN, no inline script, same-origin API calls.
const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function consoleRoutes(assets: ConsoleAssets): Router {
  const router = strictRouter();
  for (const [path, asset] of assets.files) {
    router.get(path, (req, res) => {
      res.setHeader('Content-Type', asset.type);
      res.setHeader('ETag', asset.etag);
      // Revalidate every time: the file names carry no hash, and an ETag hit costs one round trip.
      res.setHeader('Cache-Control', 'no-cache');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      if (path === '/') {
        res.setHeader('Content-Security-Policy', CSP);
        res.setHeader('Referrer-Policy', 'no-referrer');
      }
      if (req.headers['if-none-match'] === asset.etag) {
        res.status(304).end();
        return;
      }
      res.send(asset.body);
    });
  }
  return router;
}
