// Prints the request/response grammar of one Kafka API version from Apache Kafka's message
// specs (../shared/kafka-protocol/messages, or KAFKA_MESSAGES_DIR), in the notation of Kafka's
// protocol guide and @platformatic/kafka's src/apis/<group>/<api>-v<N>.ts: the header comment
// each module in src/kafka/apis/ opens with.
//
//   npx tsx scripts/kafka-grammar.ts CreateTopics 7
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { updateSpec } from './kafka-spec-updates.js';

const here = dirname(fileURLToPath(import.meta.url));
export const DEFAULT_MESSAGES_DIR = resolve(here, '../../shared/kafka-protocol/messages');

interface Field {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  fields?: Field[];
}
interface Spec {
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: Field[];
  commonStructs?: { name: string; fields: Field[] }[];
}

function inVersions(spec: string | undefined, v: number): boolean {
  if (spec === undefined || spec === 'none') return false;
  const plus = /^(\d+)\+$/.exec(spec);
  if (plus) return v >= Number(plus[1]);
  const dash = /^(\d+)-(\d+)$/.exec(spec);
  if (dash) return v >= Number(dash[1]) && v <= Number(dash[2]);
  return v === Number(spec);
}

const snake = (n: string) =>
  n
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();

function load(dir: string, name: string): Spec {
  const text = readFileSync(join(dir, `${name}.json`), 'utf8').replace(/^\s*\/\/.*$/gm, '');
  return updateSpec(JSON.parse(text) as Spec); // with Kafka 4.0-4.2's additions (./kafka-spec-updates.ts)
}

function primitive(t: string, nullable: boolean, flexible: boolean): string {
  const base = t.toUpperCase().replace('FLOAT64', 'FLOAT64');
  if (t === 'string' || t === 'bytes') return `${flexible ? 'COMPACT_' : ''}${nullable ? 'NULLABLE_' : ''}${base}`;
  if (t === 'records') return `${flexible ? 'COMPACT_' : ''}RECORDS`;
  if (t === 'bool') return 'BOOLEAN';
  return base;
}

export function grammar(
  api: string,
  kind: 'Request' | 'Response',
  version: number,
  dir = process.env.KAFKA_MESSAGES_DIR ?? DEFAULT_MESSAGES_DIR,
): string {
  const spec = load(dir, `${api}${kind}`);
  if (!inVersions(spec.validVersions, version)) throw new Error(`${api}${kind} has no version ${version}`);
  const flexible = inVersions(spec.flexibleVersions, version);
  const structs = new Map((spec.commonStructs ?? []).map((s) => [s.name, s.fields]));
  const lines: string[] = [];
  const render = (label: string, fields: Field[], depth: number): void => {
    const present = fields.filter((f) => inVersions(f.versions, version) && !inVersions(f.taggedVersions, version));
    const parts = present.map((f) => (f.type.startsWith('[]') ? `[${snake(f.name)}]` : snake(f.name)));
    if (flexible) parts.push('TAG_BUFFER');
    lines.push(`${'  '.repeat(depth)}${label} => ${parts.join(' ')}`.trimEnd());
    for (const f of present) {
      const isArray = f.type.startsWith('[]');
      const t = isArray ? f.type.slice(2) : f.type;
      const sub = f.fields ?? structs.get(t);
      if (sub) render(snake(f.name), sub, depth + 1);
      else lines.push(`${'  '.repeat(depth + 1)}${snake(f.name)} => ${primitive(t, inVersions(f.nullableVersions, version), flexible)}`);
    }
  };
  render(`${api} ${kind} (Version: ${version})`, spec.fields, 0);
  return lines.join('\n');
}

/** The comment a module in src/kafka/apis/ opens with. */
export function grammarComment(api: string, version: number, dir?: string): string {
  const indent = (text: string) => text.replace(/^/gm, '  ');
  return `/*\n${indent(grammar(api, 'Request', version, dir))}\n\n${indent(grammar(api, 'Response', version, dir))}\n*/`;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [api, v] = process.argv.slice(2);
  if (!api || v === undefined) {
    console.error('usage: tsx scripts/kafka-grammar.ts <Api> <version>');
    process.exit(2);
  }
  console.log(grammarComment(api, Number(v)));
}
