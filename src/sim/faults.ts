// Faults on demand, after franz-go's kfake (Cluster.ControlKey / AddFault): intercept requests by
// API key, optionally only on one broker, one API version, from one client id (the request
// header's: one process of several sharing the cluster), after the first N matching requests
// and for a budget of M requests, and instead of the normal answer
//   - answer a Kafka error code (with a message and a throttle time), encoded in that API's
//     response shape as Kafka's own AbstractRequest.getErrorResponse does: the top-level
//     error_code when the response has one, and the same code on every item the request named
//     (topics, resources, partitions ...) where the response has per-item error fields;
//   - delay the request (then handle it normally, or answer the error / drop after the delay);
//   - drop the connection without answering, before the request is handled (nothing applied)
//     or after it (applied, answer lost: the case a client's retry must not apply twice).
//
// The first active fault that matches a request wins (insertion order), as kfake's controls do.
// A request consumes one unit of that fault's budget; an exhausted fault stays listed (with
// remaining 0) so a test can read `applied`, until removed or cleared. Every application is also
// an 'applied' event, so tests wait for "the request reached the broker" instead of sleeping.
//
// Faults are cluster-wide state (one FaultInjector per Simulator, shared by its brokers), set
// programmatically (Simulator.faults) or over the control port (POST/GET/DELETE /faults).
import { EventEmitter } from 'node:events';
import type { FieldSchema, MessageSchema } from './protocol/schema.js';
import { inRange } from './protocol/schema.js';

export interface FaultError {
  /** Kafka error code answered (e.g. 29 TOPIC_AUTHORIZATION_FAILED). */
  code: number;
  /** error_message where the response has one; null (the default) lets clients use Kafka's text. */
  message?: string | null;
  /** throttle_time_ms of the answer (e.g. with 89 THROTTLING_QUOTA_EXCEEDED). Default 0. */
  throttleTimeMs?: number;
}

export interface FaultSpec {
  /** API key to intercept (19 = CreateTopics, ...). */
  apiKey: number;
  /** Only requests to this broker. Default: any broker. */
  brokerId?: number;
  /** Only requests of this API version. Default: any version. */
  version?: number;
  /** Only requests whose header names this client id (e.g. one of several gateway instances). Default: any client. */
  clientId?: string;
  /** Let this many matching requests through untouched first. Default 0. */
  after?: number;
  /** Apply to at most this many requests. Default: until removed. */
  times?: number;
  /** Wait this long first (alone: a slow answer to exactly these requests). */
  delayMs?: number;
  /** Answer this error instead of handling the request. */
  error?: FaultError;
  /**
   * Close the connection without an answer: 'before' the request is handled (it never happened)
   * or 'after' (it was applied, the answer is lost).
   */
  drop?: 'before' | 'after';
}

export interface Fault extends Readonly<FaultSpec> {
  readonly id: number;
  /** Matching requests seen (let through by `after` included). */
  readonly matched: number;
  /** Requests the fault was applied to. */
  readonly applied: number;
  /** Applications left; null = unlimited. */
  readonly remaining: number | null;
}

export interface FaultEvent {
  fault: Fault;
  brokerId: number;
  apiKey: number;
  version: number;
  /** The request header's client id (null when the client sent none). */
  clientId: string | null;
}

/** A spec the injector refuses, with the reason. */
export class FaultSpecError extends Error {}

const INT16 = [-32768, 32767] as const;

function checkInt(spec: Record<string, unknown>, key: string, min: number, max = 2147483647): void {
  const v = spec[key];
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw new FaultSpecError(`${key} must be an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
  }
}

/** Validates an untrusted spec (the control port's body) and returns it typed. */
export function parseFaultSpec(raw: unknown): FaultSpec {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new FaultSpecError('a fault is a JSON object');
  const spec = raw as Record<string, unknown>;
  const known = new Set(['apiKey', 'brokerId', 'version', 'clientId', 'after', 'times', 'delayMs', 'error', 'drop']);
  const unknown = Object.keys(spec).filter((k) => !known.has(k));
  if (unknown.length > 0) throw new FaultSpecError(`unknown field(s): ${unknown.join(', ')} (known: ${[...known].join(', ')})`);
  if (spec.apiKey === undefined) throw new FaultSpecError('apiKey is required');
  checkInt(spec, 'apiKey', 0, INT16[1]);
  checkInt(spec, 'brokerId', 0);
  checkInt(spec, 'version', 0, INT16[1]);
  checkInt(spec, 'after', 0);
  checkInt(spec, 'times', 1);
  checkInt(spec, 'delayMs', 0, 600_000);
  if (spec.clientId !== undefined && typeof spec.clientId !== 'string')
    throw new FaultSpecError(`clientId must be a string, got ${JSON.stringify(spec.clientId)}`);
  if (spec.drop !== undefined && spec.drop !== 'before' && spec.drop !== 'after') {
    throw new FaultSpecError(`drop must be 'before' or 'after', got ${JSON.stringify(spec.drop)}`);
  }
  let error: FaultError | undefined;
  if (spec.error !== undefined) {
    const e = typeof spec.error === 'number' ? { code: spec.error } : spec.error;
    if (typeof e !== 'object' || e === null || Array.isArray(e))
      throw new FaultSpecError('error is a code or {code, message?, throttleTimeMs?}');
    const fields = e as Record<string, unknown>;
    const extra = Object.keys(fields).filter((k) => !['code', 'message', 'throttleTimeMs'].includes(k));
    if (extra.length > 0) throw new FaultSpecError(`unknown error field(s): ${extra.join(', ')}`);
    if (fields.code === undefined) throw new FaultSpecError('error.code is required');
    checkInt(fields, 'code', INT16[0], INT16[1]);
    if (fields.code === 0) throw new FaultSpecError('error.code 0 is no error');
    checkInt(fields, 'throttleTimeMs', 0);
    if (fields.message !== undefined && fields.message !== null && typeof fields.message !== 'string') {
      throw new FaultSpecError('error.message must be a string or null');
    }
    error = {
      code: fields.code as number,
      ...(fields.message !== undefined && { message: fields.message }),
      ...(fields.throttleTimeMs !== undefined && { throttleTimeMs: fields.throttleTimeMs as number }),
    };
  }
  if (error && spec.drop) throw new FaultSpecError('a fault answers an error or drops the connection, not both');
  if (!error && !spec.drop && spec.delayMs === undefined) throw new FaultSpecError('a fault needs error, drop or delayMs');
  return {
    apiKey: spec.apiKey as number,
    ...(spec.brokerId !== undefined && { brokerId: spec.brokerId as number }),
    ...(spec.version !== undefined && { version: spec.version as number }),
    ...(spec.clientId !== undefined && { clientId: spec.clientId }),
    ...(spec.after !== undefined && { after: spec.after as number }),
    ...(spec.times !== undefined && { times: spec.times as number }),
    ...(spec.delayMs !== undefined && { delayMs: spec.delayMs as number }),
    ...(error && { error }),
    ...(spec.drop !== undefined && { drop: spec.drop }),
  };
}

interface FaultState {
  id: number;
  spec: FaultSpec;
  matched: number;
  applied: number;
}

function view(s: FaultState): Fault {
  return {
    ...s.spec,
    id: s.id,
    matched: s.matched,
    applied: s.applied,
    remaining: s.spec.times === undefined ? null : s.spec.times - s.applied,
  };
}

export class FaultInjector {
  private readonly faults: FaultState[] = [];
  private nextId = 1;
  private readonly events = new EventEmitter();

  /** Adds a fault (validated as parseFaultSpec does) and returns it. */
  add(spec: FaultSpec): Fault {
    const s: FaultState = { id: this.nextId++, spec: parseFaultSpec(spec), matched: 0, applied: 0 };
    this.faults.push(s);
    return view(s);
  }

  list(): Fault[] {
    return this.faults.map(view);
  }

  get(id: number): Fault | undefined {
    const s = this.faults.find((f) => f.id === id);
    return s && view(s);
  }

  /** Removes one fault; false when there is none with that id. */
  remove(id: number): boolean {
    const i = this.faults.findIndex((f) => f.id === id);
    if (i < 0) return false;
    this.faults.splice(i, 1);
    return true;
  }

  /** Removes every fault; returns how many there were. */
  clear(): number {
    return this.faults.splice(0).length;
  }

  /**
   * The dispatch hook: the fault to apply to this request, or null to handle it normally.
   * Counts the request against every fault it matches until one takes it. `clientId`: the
   * request header's (a fault with a clientId matches only requests naming that one).
   */
  take(brokerId: number, apiKey: number, version: number, clientId: string | null = null): Fault | null {
    for (const s of this.faults) {
      const { spec } = s;
      if (spec.apiKey !== apiKey) continue;
      if (spec.brokerId !== undefined && spec.brokerId !== brokerId) continue;
      if (spec.version !== undefined && spec.version !== version) continue;
      if (spec.clientId !== undefined && spec.clientId !== clientId) continue;
      if (spec.times !== undefined && s.applied >= spec.times) continue;
      s.matched++;
      if (s.matched <= (spec.after ?? 0)) continue;
      s.applied++;
      const fault = view(s);
      this.events.emit('applied', { fault, brokerId, apiKey, version, clientId } satisfies FaultEvent);
      return fault;
    }
    return null;
  }

  /** Calls listener on every application; returns the unsubscribe function. */
  onApplied(listener: (e: FaultEvent) => void): () => void {
    this.events.on('applied', listener);
    return () => this.events.off('applied', listener);
  }

  /**
   * Resolves once fault `id` has been applied `count` times in all (at once if it already was);
   * rejects after timeoutMs (default 30 s) naming the fault, so a test fails instead of hanging.
   */
  waitApplied(id: number, count = 1, timeoutMs = 30_000): Promise<Fault> {
    const current = this.get(id);
    if (current && current.applied >= count) return Promise.resolve(current);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        off();
        reject(new Error(`fault ${id} applied ${this.get(id)?.applied ?? 'n/a'} of ${count} time(s) within ${timeoutMs} ms`));
      }, timeoutMs);
      const off = this.onApplied((e) => {
        if (e.fault.id !== id || e.fault.applied < count) return;
        clearTimeout(timer);
        off();
        resolve(e.fault);
      });
    });
  }
}

// ---------------------------------------------------------------- error responses

type Struct = Record<string, unknown>;

/**
 * For each API, which request array feeds which response array (at any depth), as Kafka's
 * getErrorResponse of that request does. APIs not listed mirror arrays of the same name.
 * An entry maps a response field to request field names tried in order (per version, the
 * first present wins: DeleteTopics v6 names `topics`, v0-5 `topicNames`).
 */
const MIRRORS: Readonly<Record<number, Readonly<Record<string, readonly string[]>>>> = {
  0: { responses: ['topicData'], partitionResponses: ['partitionData'] }, // Produce
  1: { responses: ['topics'], partitions: ['partitions'] }, // Fetch
  2: { topics: ['topics'], partitions: ['partitions'] }, // ListOffsets
  3: { topics: ['topics'] }, // Metadata
  19: { topics: ['topics'] }, // CreateTopics
  20: { responses: ['topics', 'topicNames'] }, // DeleteTopics
  32: { results: ['resources'] }, // DescribeConfigs
  33: { responses: ['resources'] }, // AlterConfigs
  35: {}, // DescribeLogDirs: top-level error (v3+) and no results
  37: { results: ['topics'] }, // CreatePartitions
  44: { responses: ['resources'] }, // IncrementalAlterConfigs
  45: { responses: ['topics'], partitions: ['partitions'] }, // AlterPartitionReassignments
  46: {}, // ListPartitionReassignments: top-level error only
  48: {}, // DescribeClientQuotas: top-level error only
  49: { entries: ['entries'], entity: ['entity'] }, // AlterClientQuotas
  60: {}, // DescribeCluster: top-level error only
};

/** Nullable arrays an error answer sets to null, as Kafka's getErrorResponse does. */
const NULLED: Readonly<Record<number, readonly string[]>> = {
  48: ['entries'], // DescribeClientQuotas
};

/** Response scalar fields filled from a request field of another name (first found wins). */
const SCALAR_ALIASES: Readonly<Record<string, readonly string[]>> = {
  partitionIndex: ['partitionIndex', 'partition', 'index'],
  topicName: ['topicName', 'name'],
};

function present(f: FieldSchema, version: number): boolean {
  return inRange(f.v, version);
}

/** Whether a struct (or anything nested in it) carries an error_code in this version. */
function carriesError(fields: readonly FieldSchema[] | undefined, version: number): boolean {
  return (fields ?? []).some((f) => present(f, version) && (f.n === 'errorCode' || (f.t === '[]struct' && carriesError(f.f, version))));
}

function scalarMatches(res: FieldSchema, req: FieldSchema | undefined, value: unknown): boolean {
  if (!req || value === undefined) return false;
  return req.t === res.t || (typeof value === 'number' && /^u?int(8|16|32)$/.test(res.t));
}

function build(
  apiKey: number,
  version: number,
  resFields: readonly FieldSchema[],
  reqFields: readonly FieldSchema[],
  req: Struct,
  err: FaultError,
  top: boolean,
): Struct {
  const out: Struct = {};
  const mirrors = MIRRORS[apiKey];
  for (const f of resFields) {
    if (!present(f, version)) continue;
    if (f.n === 'errorCode' && f.t === 'int16') {
      out.errorCode = err.code;
    } else if (f.n === 'errorMessage' && f.t === 'string') {
      const nullable = inRange(f.nv, version);
      out.errorMessage = err.message ?? (nullable ? null : '');
    } else if (top && f.n === 'throttleTimeMs') {
      out.throttleTimeMs = err.throttleTimeMs ?? 0;
    } else if (top && NULLED[apiKey]?.includes(f.n) && inRange(f.nv, version)) {
      out[f.n] = null;
    } else if (f.t === '[]struct') {
      // Arrays without error fields stay at their defaults (empty or null), unless listed.
      if (!carriesError(f.f, version) && !(mirrors && f.n in mirrors)) continue;
      const sources = mirrors ? (mirrors[f.n] ?? []) : [f.n];
      const source = sources.map((n) => reqFields.find((r) => r.n === n && present(r, version))).find((r) => r !== undefined);
      const items = source ? req[source.n] : undefined;
      if (!source || !Array.isArray(items)) continue;
      out[f.n] = items.map((item: unknown) => {
        // An item that is a bare name or partition index (DeleteTopics v0-5 topicNames,
        // partition index lists) stands for the struct with that one field.
        const asStruct: Struct =
          typeof item === 'string'
            ? { name: item, topicName: item }
            : typeof item === 'number'
              ? { partitionIndex: item }
              : (item as Struct);
        const itemFields: readonly FieldSchema[] =
          source.f ??
          (typeof item === 'string'
            ? [
                { n: 'name', t: 'string', v: [0, 32767] },
                { n: 'topicName', t: 'string', v: [0, 32767] },
              ]
            : [{ n: 'partitionIndex', t: 'int32', v: [0, 32767] }]);
        return build(apiKey, version, f.f ?? [], itemFields, asStruct, err, false);
      });
    } else if (!f.t.startsWith('[]') && f.t !== 'struct') {
      for (const name of SCALAR_ALIASES[f.n] ?? [f.n]) {
        const r = reqFields.find((x) => x.n === name && present(x, version));
        if (scalarMatches(f, r, req[name])) {
          out[f.n] = req[name];
          break;
        }
      }
    }
  }
  return out;
}

/**
 * The body Kafka would answer to `request` (of `requestSchema`, at `version`) failed as a whole
 * with `err`: the top-level error fields where the response has them, and every item the
 * request named (by name, id, index, resource) answered with the same error where the response
 * carries per-item errors. Fields left out take their defaults when encoded.
 */
export function errorResponse(
  requestSchema: MessageSchema,
  responseSchema: MessageSchema,
  version: number,
  request: unknown,
  err: FaultError,
): Struct {
  return build(requestSchema.apiKey, version, responseSchema.fields, requestSchema.fields, (request ?? {}) as Struct, err, true);
}
