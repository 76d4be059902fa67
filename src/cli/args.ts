// kag's command line: the options it knows, how its values are read and checked (a bad one is a
// UsageError: exit 2 with the message), and what every command is handed.
import { readFileSync } from 'node:fs';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { ReassignmentFile } from '../client/api.js';

export const OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
  brokers: { type: 'string' },
  topics: { type: 'string' },
  'output-file': { type: 'string' },
  'replication-factor': { type: 'string' },
  'reassignment-json-file': { type: 'string' },
  'rollback-file': { type: 'string' },
  throttle: { type: 'string' },
  'per-broker': { type: 'string' },
  cluster: { type: 'string' },
  order: { type: 'string' },
  'validate-only': { type: 'boolean' },
  'preserve-throttles': { type: 'boolean' },
  watch: { type: 'boolean', short: 'w' },
  follow: { type: 'boolean', short: 'f' },
  interval: { type: 'string' },
  type: { type: 'string' },
  partitions: { type: 'string' },
  all: { type: 'boolean' },
  confirm: { type: 'string' },
} satisfies ParseArgsConfig['options'];

export class UsageError extends Error {}

/**
 * `--token -Xy…` as `--token=-Xy…`: a string option's next argument is its value even when it
 * starts with a dash (a base64url token does one time in 64), which parseArgs would refuse as
 * ambiguous. `--` ends the options.
 */
export function withInlineValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') return [...out, ...argv.slice(i)];
    const name = a.startsWith('--') ? a.slice(2) : undefined;
    const opt = name !== undefined && !name.includes('=') ? (OPTIONS as Record<string, { type: string }>)[name] : undefined;
    if (opt?.type === 'string' && i + 1 < argv.length && argv[i + 1].startsWith('-') && argv[i + 1] !== '--') out.push(`${a}=${argv[++i]}`);
    else out.push(a);
  }
  return out;
}

export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  isTTY: boolean;
}

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export function intList(v: string | undefined, name: string): number[] | undefined {
  if (v === undefined) return undefined;
  const xs = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!xs.every((x) => /^\d+$/.test(x))) throw new UsageError(`--${name} takes a comma-separated list of broker ids, got "${v}"`);
  return xs.map(Number);
}
/** A concurrency bound: a positive whole number, or `none` (no bound: null). */
function bound(v: string | undefined, name: string): number | null | undefined {
  if (v === 'none') return null;
  return positiveInt(v, name);
}
export function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) <= 0) throw new UsageError(`--${name} takes a positive whole number, got "${v}"`);
  return Number(v);
}

export function readReassignmentFile(path: string): ReassignmentFile {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`cannot read ${path} as JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  const d = doc as Partial<ReassignmentFile>;
  if (!d || typeof d !== 'object' || !Array.isArray(d.partitions))
    throw new UsageError(`${path} is not a Kafka reassignment file ({"version":1,"partitions":[...]})`);
  return d as ReassignmentFile;
}

/** How a command prints: `json` as JSON, `render()` as text for `--output table`. */
export type Print = (json: unknown, render: () => string) => void;

/** Where the gateway is and who we are (the event streams are read beside the client). */
export interface Connection {
  baseUrl: string;
  token: string | null;
}

/** --per-broker / --cluster as a concurrency object; undefined when neither is given. */
export function concurrencyOf(v: Values): { perBroker?: number | null; cluster?: number | null } | undefined {
  const perBroker = bound(v['per-broker'], 'per-broker');
  const cluster = bound(v.cluster, 'cluster');
  if (perBroker === undefined && cluster === undefined) return undefined;
  return { ...(perBroker !== undefined && { perBroker }), ...(cluster !== undefined && { cluster }) };
}
