// Generates src/sim/protocol/messages.generated.ts from Apache Kafka's own message specs
// (clients/src/main/resources/common/message/*.json, Apache License 2.0), which this
// repository does not carry: they live in ../shared/kafka-protocol/messages, or wherever
// KAFKA_MESSAGES_DIR points.
//
// Why generate instead of hand-writing one codec per API version: every field, version
// range, nullability and tag then comes from Kafka itself, and test/sim/protocol checks
// the committed output against the specs, so a transcription slip cannot hide.
//
//   npm run gen:protocol            write the file
//   npm run gen:protocol -- --check exit 1 when the committed file is stale
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { updateSpec } from './kafka-spec-updates.js';

const here = dirname(fileURLToPath(import.meta.url));
export const OUTPUT = resolve(here, '../src/sim/protocol/messages.generated.ts');
export const DEFAULT_MESSAGES_DIR = resolve(here, '../../shared/kafka-protocol/messages');

/** The APIs the simulator speaks. Adding one here and regenerating gives it a codec. */
export const API_NAMES = [
  'Produce',
  'Fetch',
  'ListOffsets',
  'Metadata',
  'FindCoordinator',
  'SaslHandshake',
  'ApiVersions',
  'CreateTopics',
  'DeleteTopics',
  'DescribeConfigs',
  'AlterConfigs',
  'DescribeLogDirs',
  'SaslAuthenticate',
  'CreatePartitions',
  'IncrementalAlterConfigs',
  'AlterPartitionReassignments',
  'ListPartitionReassignments',
  'DescribeClientQuotas',
  'AlterClientQuotas',
  'DescribeCluster',
  'DescribeTopicPartitions',
  'AlterReplicaLogDirs',
  'ElectLeaders',
];

interface SpecField {
  name: string;
  type: string;
  versions: string;
  nullableVersions?: string;
  taggedVersions?: string;
  flexibleVersions?: string;
  tag?: number;
  default?: string | number | boolean;
  fields?: SpecField[];
}
interface SpecMessage {
  apiKey?: number;
  type: string;
  name: string;
  validVersions: string;
  flexibleVersions: string;
  fields: SpecField[];
  commonStructs?: { name: string; versions: string; fields: SpecField[] }[];
}

const MAX = 32767;
function range(spec: string | undefined): [number, number] | null {
  if (spec === undefined || spec === 'none') return null;
  const plus = /^(\d+)\+$/.exec(spec);
  if (plus) return [Number(plus[1]), MAX];
  const dash = /^(\d+)-(\d+)$/.exec(spec);
  if (dash) return [Number(dash[1]), Number(dash[2])];
  if (/^\d+$/.test(spec)) return [Number(spec), Number(spec)];
  throw new Error(`bad version range ${spec}`);
}

function camel(name: string): string {
  return name.slice(0, 1).toLowerCase() + name.slice(1);
}

function parseSpec(file: string): SpecMessage {
  // The specs are JSON with // comments.
  const text = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => !/^\s*\/\//.test(l))
    .join('\n');
  // With what Kafka 4.0-4.2 added to the APIs the gateway sends (./kafka-spec-updates.ts).
  return updateSpec(JSON.parse(text) as SpecMessage);
}

const PRIMITIVES = new Set([
  'bool',
  'int8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'float64',
  'string',
  'bytes',
  'records',
  'uuid',
]);

type Out = string;
function fieldSchema(f: SpecField, common: Map<string, SpecField[]>, indent: string): Out {
  const parts: string[] = [`n: '${camel(f.name)}'`];
  const isArray = f.type.startsWith('[]');
  const base = isArray ? f.type.slice(2) : f.type;
  let inner: SpecField[] | undefined;
  if (!PRIMITIVES.has(base)) inner = f.fields ?? common.get(base);
  if (!PRIMITIVES.has(base) && !inner) throw new Error(`unknown type ${f.type}`);
  parts.push(`t: '${isArray ? '[]' : ''}${inner ? 'struct' : base}'`);
  parts.push(`v: ${JSON.stringify(range(f.versions))}`);
  const nv = range(f.nullableVersions);
  if (nv) parts.push(`nv: ${JSON.stringify(nv)}`);
  if (f.taggedVersions !== undefined) {
    parts.push(`tv: ${JSON.stringify(range(f.taggedVersions))}`, `tag: ${f.tag}`);
  }
  if (f.flexibleVersions !== undefined) parts.push(`fv: ${JSON.stringify(range(f.flexibleVersions))}`);
  if (f.default !== undefined) parts.push(`d: ${JSON.stringify(String(f.default))}`);
  if (inner) {
    parts.push(`f: [\n${inner.map((x) => `${indent}  { ${fieldSchema(x, common, indent + '  ')} },`).join('\n')}\n${indent}]`);
  }
  return parts.join(', ');
}

function tsType(f: SpecField, common: Map<string, SpecField[]>, indent: string): string {
  const isArray = f.type.startsWith('[]');
  const base = isArray ? f.type.slice(2) : f.type;
  let t: string;
  switch (base) {
    case 'bool':
      t = 'boolean';
      break;
    case 'int64':
      t = 'bigint';
      break;
    case 'string':
    case 'uuid':
      t = 'string';
      break;
    case 'bytes':
    case 'records':
      t = 'Buffer';
      break;
    case 'int8':
    case 'int16':
    case 'uint16':
    case 'int32':
    case 'uint32':
    case 'float64':
      t = 'number';
      break;
    default:
      t = structType(f.fields ?? common.get(base)!, common, indent);
  }
  if (isArray) t = `Array<${t}>`;
  if (f.nullableVersions !== undefined || base === 'records') t += ' | null';
  return t;
}

function structType(fields: SpecField[], common: Map<string, SpecField[]>, indent: string): string {
  const lines = fields.map((f) => {
    // Present in every version and not tagged: always there. Otherwise optional:
    // the decoder fills it with its default, an encoder may leave it out.
    const always = f.versions === '0+' && f.taggedVersions === undefined;
    return `${indent}  ${camel(f.name)}${always ? '' : '?'}: ${tsType(f, common, indent + '  ')};`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

export function generate(messagesDir: string): string {
  const names = ['RequestHeader', 'ResponseHeader', ...API_NAMES.flatMap((n) => [`${n}Request`, `${n}Response`])];
  const out: string[] = [
    "// GENERATED by scripts/gen-protocol.ts from Apache Kafka's message specs (Apache License 2.0).",
    '// Do not edit: change the script or the API list and run `npm run gen:protocol`.',
    "import type { MessageSchema } from './schema.js';",
    '',
  ];
  const registry: string[] = [];
  for (const name of names) {
    const file = join(messagesDir, `${name}.json`);
    if (!existsSync(file)) throw new Error(`missing spec ${file}`);
    const spec = parseSpec(file);
    const common = new Map((spec.commonStructs ?? []).map((s) => [s.name, s.fields]));
    const valid = range(spec.validVersions)!;
    out.push(`export interface ${name} ${structType(spec.fields, common, '')}`, '');
    out.push(`export const ${name}Schema: MessageSchema = {`);
    out.push(
      `  name: '${name}', apiKey: ${spec.apiKey ?? -1}, valid: ${JSON.stringify(valid)}, flexible: ${JSON.stringify(range(spec.flexibleVersions))},`,
    );
    out.push(`  fields: [\n${spec.fields.map((f) => `    { ${fieldSchema(f, common, '    ')} },`).join('\n')}\n  ],`);
    out.push('};', '');
    if (spec.apiKey !== undefined) registry.push(`  ${name}Schema,`);
  }
  out.push('export const ALL_SCHEMAS: readonly MessageSchema[] = [', ...registry, '];', '');
  return out.join('\n');
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.env.KAFKA_MESSAGES_DIR ?? DEFAULT_MESSAGES_DIR;
  const text = generate(dir);
  if (process.argv.includes('--check')) {
    const current = existsSync(OUTPUT) ? readFileSync(OUTPUT, 'utf8') : '';
    if (current !== text) {
      console.error(`${OUTPUT} is stale: run npm run gen:protocol`);
      process.exit(1);
    }
    console.log('protocol schemas up to date');
  } else {
    writeFileSync(OUTPUT, text);
    console.log(`wrote ${OUTPUT}`);
  }
}
