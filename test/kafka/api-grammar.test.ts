// Each module src/kafka/apis/<api>-v<N>.ts is one Kafka API at one version: it sends that
// version (it imports @platformatic/kafka's <api>V<N>), and it opens with that version's
// request/response grammar, exactly as scripts/kafka-grammar.ts derives it from Kafka's message
// specs (../shared/kafka-protocol/messages, or KAFKA_MESSAGES_DIR). A module that speaks several
// versions (src/kafka/apis/<api>.ts, the APIs of GATEWAY_APIS whose range is wider than one
// version: issue 29's negotiation) opens with the grammar of the newest it speaks and says in
// prose what the older ones lack.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MESSAGES_DIR, grammarComment } from '../../scripts/kafka-grammar.js';
import { GATEWAY_APIS } from '../../src/kafka/apis/versions.js';

const APIS = 'src/kafka/apis';
const dir = process.env.KAFKA_MESSAGES_DIR ?? DEFAULT_MESSAGES_DIR;

const modules = readdirSync(APIS)
  .map((file) => ({ file, m: /^([a-z-]+)-v(\d+)\.ts$/.exec(file) }))
  .filter((x): x is { file: string; m: RegExpExecArray } => x.m !== null)
  .map(({ file, m }) => {
    const words = m[1].split('-');
    return {
      file,
      version: Number(m[2]),
      api: words.map((w) => w[0].toUpperCase() + w.slice(1)).join(''),
      module:
        words[0] +
        words
          .slice(1)
          .map((w) => w[0].toUpperCase() + w.slice(1))
          .join('') +
        `V${m[2]}`,
      text: readFileSync(join(APIS, file), 'utf8'),
    };
  });

test('every per-API module sends the version its name says', () => {
  assert.ok(modules.length >= 9, `expected the gateway's API modules, found ${modules.map((m) => m.file).join(', ')}`);
  for (const m of modules) {
    const imports = [...m.text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'@platformatic\/kafka'/g)].flatMap((x) =>
      x[1].split(',').map((s) => s.trim()),
    );
    assert.ok(imports.includes(m.module), `${m.file} does not import ${m.module}`);
    const others = imports.filter((n) => /^[a-z][A-Za-z]*V\d+$/.test(n) && n !== m.module);
    assert.deepEqual(others, [], `${m.file} sends other APIs too`);
  }
});

test('every per-API module opens with the grammar of its version', { skip: existsSync(dir) ? false : `no specs at ${dir}` }, () => {
  for (const m of modules) {
    const expected = grammarComment(m.api, m.version, dir);
    const at = m.text.indexOf(expected);
    assert.ok(at >= 0, `${m.file} does not carry this grammar (npx tsx scripts/kafka-grammar.ts ${m.api} ${m.version}):\n${expected}`);
    assert.ok(at < m.text.indexOf('\nimport '), `${m.file}: the grammar must come before the code`);
  }
});

const kebab = (api: string): string => api.replace(/[A-Z]/g, (c, i: number) => (i === 0 ? '' : '-') + c.toLowerCase());
const multiVersion = Object.values(GATEWAY_APIS).filter((a) => a.max > a.min);

test(
  'every module that speaks several versions opens with the grammar of the newest it speaks',
  { skip: existsSync(dir) ? false : `no specs at ${dir}` },
  () => {
    assert.ok(multiVersion.length >= 6);
    for (const a of multiVersion) {
      const file = `${kebab(a.name)}.ts`;
      const text = readFileSync(join(APIS, file), 'utf8');
      const expected = grammarComment(a.name, a.max, dir);
      const at = text.indexOf(expected);
      assert.ok(at >= 0, `${file} does not carry this grammar (npx tsx scripts/kafka-grammar.ts ${a.name} ${a.max}):\n${expected}`);
      assert.ok(at < text.indexOf('\nimport '), `${file}: the grammar must come before the code`);
      assert.match(text, new RegExp(`v${a.min}-v${a.max}`), `${file} names the versions it speaks`);
    }
  },
);
