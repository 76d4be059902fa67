// Issues a bearer token: prints the token once (give it to the caller) and the entry
// to add to GATEWAY_TOKENS_FILE (only the hash is kept by the gateway).
//
//   npm run token:new -- --name ci-readonly --role viewer
//   printf %s "$EXISTING_TOKEN" | npm run token:new -- --name legacy --role admin --stdin
//   node dist/http/auth/token-cli.js --name ... --role ...      (in the container)
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { isRole, ROLES } from './roles.js';
import { generateToken, isWellFormedBearerToken, sha256Hex } from './tokens.js';

function main(): number {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      role: { type: 'string' },
      stdin: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const usage = `usage: token-cli --name <name> --role <${ROLES.join('|')}> [--stdin]\n  --stdin  hash the token read from standard input instead of generating one\n`;
  if (values.help) {
    process.stdout.write(usage);
    return 0;
  }
  if (!values.name || !/^[A-Za-z0-9._@:-]{1,64}$/.test(values.name) || !isRole(values.role)) {
    process.stderr.write(usage);
    return 2;
  }
  const token = values.stdin ? readFileSync(0, 'utf8').trim() : generateToken();
  if (!isWellFormedBearerToken(token)) {
    process.stderr.write('the token must be 1-1024 characters of [A-Za-z0-9-._~+/] (RFC 6750)\n');
    return 2;
  }
  const entry = [{ name: values.name, role: values.role, sha256: sha256Hex(token) }];
  if (!values.stdin) process.stdout.write(`token (shown once; give it to ${values.name}):\n${token}\n\n`);
  process.stdout.write(
    `add to GATEWAY_TOKENS_FILE:\n${stringify(entry)}\nor to GATEWAY_TOKENS:\n${values.name}:${values.role}:${entry[0].sha256}\n`,
  );
  return 0;
}

process.exitCode = main();
