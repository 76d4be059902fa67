// The simulator's control port: a tiny HTTP API on loopback, so scripts and tests in another
// process can break the cluster over the wire (`npm run sim -- --control-port 19999`, or
// SIM_CONTROL_PORT for `npm run sim` and for the simulator embedded in `npm start`).
//
//   POST /brokers/{id}/stop    stop (fence) one broker: its port refuses connections, it leaves
//                              ISRs and partitions it led elect another leader   → 200 broker
//   POST /brokers/{id}/start   start it again (trouble asked for below stands)    → 200 broker
//   POST /brokers/{id}/fall-behind  it leaves the ISR of every partition it follows and
//                              stays out (./cluster/trouble.ts)   → 200 {id, behind, isrChanged}
//   POST /brokers/{id}/catch-up     it rejoins those ISRs        → 200 {id, behind, isrChanged}
//   POST /topics/{name}/under-min-isr  {partitions?: [n]} (default all): followers leave the
//                              ISR until it is min.insync.replicas - 1 (at least the leader)
//                                                          → 200 {topic, minIsr, partitions}
//   POST /topics/{name}/restore-isr    {partitions?: [n]}: they rejoin  → 200 {topic, partitions}
//   GET  /trouble              what is asked for: {behind: [ids], heldOut: [{topic, partition, broker}]}
//   GET  /state                brokers (up/down, host, port, rack), controller, moving count
//   GET  /state?topic=a&topic=b  ... plus each named topic's partitions: leader, replicas, ISR
//   POST   /faults             add a fault (./faults.ts): {apiKey (number or API name, e.g.
//                              "CreateTopics"), brokerId?, version?, clientId?, after?, times?, delayMs?,
//                              error?: code | {code, message?, throttleTimeMs?},
//                              drop?: "before" | "after"}                      → 201 fault
//   GET    /faults             {faults: [...]} with matched / applied / remaining counts
//   GET    /faults/{id}        one fault                                       → 200 fault
//   DELETE /faults/{id}        remove one                                      → 200 fault
//   DELETE /faults             remove all                                      → 200 {removed: n}
//
// Answers are JSON; errors are {"error": "..."} with 400 (bad id or query), 404 (no such broker,
// topic or route) or 405 (known path, other method). Stopping a stopped broker is not an error
// (idempotent, as the model is). Nothing here authenticates: it listens on 127.0.0.1 by default
// and is for test clusters only.
//
// Routes are added through ControlRouter.route, so other controls (fault injection by API key,
// say) can join the same port: `control.router.route('POST', '/faults/:apiKey', handler)`.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Simulator } from './simulator.js';
import { FaultSpecError, parseFaultSpec } from './faults.js';
import { KafkaError } from './cluster/errors.js';
import { troubleOf } from './cluster/trouble.js';

export interface ControlRequest {
  /** Path parameters by name (`:id` in the pattern). */
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body, or undefined when there is none. */
  body: unknown;
}

export interface ControlResponse {
  status: number;
  body: unknown;
}

export type ControlHandler = (req: ControlRequest) => ControlResponse | Promise<ControlResponse>;

/** A refusal a handler throws: answered with its status and {"error": message}. */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Route {
  method: string;
  segments: string[];
  handler: ControlHandler;
}

/** Method + path patterns (`/brokers/:id/stop`) to handlers. */
export class ControlRouter {
  private readonly routes: Route[] = [];

  route(method: string, pattern: string, handler: ControlHandler): this {
    this.routes.push({ method: method.toUpperCase(), segments: pattern.split('/').filter(Boolean), handler });
    return this;
  }

  /** The handler and path parameters for a request, 'method' when only the method is wrong, or null. */
  match(method: string, path: string): { handler: ControlHandler; params: Record<string, string> } | 'method' | null {
    const parts = path.split('/').filter(Boolean);
    let pathMatched = false;
    for (const r of this.routes) {
      if (r.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      const ok = r.segments.every((s, i) => {
        if (s.startsWith(':')) {
          params[s.slice(1)] = decodeURIComponent(parts[i]);
          return true;
        }
        return s === parts[i];
      });
      if (!ok) continue;
      if (r.method === method) return { handler: r.handler, params };
      pathMatched = true;
    }
    return pathMatched ? 'method' : null;
  }
}

export interface ControlServer {
  readonly port: number;
  readonly url: string;
  /** Add routes here (see the header). */
  readonly router: ControlRouter;
  close(): Promise<void>;
}

export interface ControlServerOptions {
  /** 0 = any free port. */
  port?: number;
  /** Default 127.0.0.1: the control port must not be reachable from elsewhere. */
  host?: string;
}

const MAX_BODY_BYTES = 64 * 1024;

function brokerId(sim: Simulator, raw: string): number {
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2147483647)
    throw new ControlError(400, `broker id must be a non-negative integer, got '${raw}'`);
  const id = Number(raw);
  if (!sim.endpoints().some((e) => e.id === id))
    throw new ControlError(
      404,
      `no broker ${id} (brokers: ${sim
        .endpoints()
        .map((e) => e.id)
        .join(', ')})`,
    );
  return id;
}

function brokerState(sim: Simulator, id: number): unknown {
  const e = sim.endpoints().find((b) => b.id === id)!;
  return { id, up: e.up, host: e.host, port: e.port, rack: e.rack };
}

function faultId(sim: Simulator, raw: string): number {
  if (!/^\d{1,10}$/.test(raw)) throw new ControlError(400, `fault id must be a positive integer, got '${raw}'`);
  const id = Number(raw);
  if (!sim.faults.get(id)) throw new ControlError(404, `no fault ${id}`);
  return id;
}

/** A fault from a request body: apiKey may be the API's name (as in Kafka's specs). */
function faultSpecFrom(sim: Simulator, body: unknown): ReturnType<typeof parseFaultSpec> {
  let raw = body;
  if (typeof body === 'object' && body !== null && typeof (body as { apiKey?: unknown }).apiKey === 'string') {
    const name = (body as { apiKey: string }).apiKey;
    const handler = [...sim.handlers.values()].find((h) => h.name.toLowerCase() === name.toLowerCase());
    if (!handler)
      throw new ControlError(400, `unknown API '${name}' (served: ${[...sim.handlers.values()].map((h) => h.name).join(', ')})`);
    raw = { ...body, apiKey: handler.apiKey };
  }
  try {
    return parseFaultSpec(raw);
  } catch (err) {
    if (err instanceof FaultSpecError) throw new ControlError(400, err.message);
    throw err;
  }
}

/** `{partitions?: [n]}` of a trouble route: null = every partition of the topic. */
function partitionsFrom(body: unknown): number[] | null {
  if (body === undefined || body === null) return null;
  if (typeof body !== 'object' || Array.isArray(body)) throw new ControlError(400, 'body must be an object {partitions?: [n]}');
  const extra = Object.keys(body).filter((k) => k !== 'partitions');
  if (extra.length > 0) throw new ControlError(400, `unknown field(s): ${extra.join(', ')} (only 'partitions')`);
  const ps = (body as { partitions?: unknown }).partitions;
  if (ps === undefined || ps === null) return null;
  if (!Array.isArray(ps) || !ps.every((n) => Number.isSafeInteger(n) && (n as number) >= 0))
    throw new ControlError(400, 'partitions must be an array of partition numbers');
  return ps as number[];
}

/** A model error for an unknown topic or partition as a 404. */
function withTopic<T>(name: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof KafkaError && err.code === 3) throw new ControlError(404, `no topic '${name}' or no such partition`);
    throw err;
  }
}

/** The simulator's routes: broker stop/start, the state view, trouble on demand and fault injection. */
export function simulatorRoutes(sim: Simulator, router = new ControlRouter()): ControlRouter {
  return router
    .route('POST', '/brokers/:id/stop', async ({ params }) => {
      const id = brokerId(sim, params.id);
      await sim.stopBroker(id);
      return { status: 200, body: brokerState(sim, id) };
    })
    .route('POST', '/brokers/:id/start', async ({ params }) => {
      const id = brokerId(sim, params.id);
      await sim.startBroker(id);
      // Starting re-adds its live replicas to every ISR: a broker behind or a replica held out stays out.
      troubleOf(sim.model).reapply();
      return { status: 200, body: brokerState(sim, id) };
    })
    .route('POST', '/brokers/:id/fall-behind', ({ params }) => {
      const id = brokerId(sim, params.id);
      const isrChanged = troubleOf(sim.model).fallBehind(id);
      return { status: 200, body: { id, behind: true, isrChanged } };
    })
    .route('POST', '/brokers/:id/catch-up', ({ params }) => {
      const id = brokerId(sim, params.id);
      const isrChanged = troubleOf(sim.model).catchUp(id);
      return { status: 200, body: { id, behind: false, isrChanged } };
    })
    .route('POST', '/topics/:name/under-min-isr', ({ params, body }) => {
      const partitions = partitionsFrom(body);
      const out = withTopic(params.name, () => troubleOf(sim.model).underMinIsr(params.name, partitions));
      return { status: 200, body: { topic: params.name, ...out } };
    })
    .route('POST', '/topics/:name/restore-isr', ({ params, body }) => {
      const partitions = partitionsFrom(body);
      const out = withTopic(params.name, () => troubleOf(sim.model).restoreIsr(params.name, partitions));
      return { status: 200, body: { topic: params.name, ...out } };
    })
    .route('GET', '/trouble', () => ({ status: 200, body: troubleOf(sim.model).state() }))
    .route('GET', '/state', ({ query }) => {
      const unknown = [...query.keys()].filter((k) => k !== 'topic');
      if (unknown.length > 0) throw new ControlError(400, `unknown query parameter(s): ${unknown.join(', ')} (only 'topic')`);
      const topics = query.getAll('topic').map((name) => {
        const t = sim.model.topicView({ name });
        if (!t) throw new ControlError(404, `no topic '${name}'`);
        return {
          name: t.name,
          topicId: t.topicId,
          partitions: t.partitions.map((p) => ({
            partition: p.partition,
            leader: p.leader,
            leaderEpoch: p.leaderEpoch,
            replicas: p.replicas,
            isr: p.isr,
            offlineReplicas: p.offlineReplicas,
          })),
        };
      });
      return {
        status: 200,
        body: {
          clusterId: sim.clusterId,
          controllerId: sim.model.controllerId,
          brokers: sim.endpoints().map((e) => ({ id: e.id, up: e.up, host: e.host, port: e.port, rack: e.rack })),
          movingPartitions: sim.model.movingPartitionCount(),
          ...(topics.length > 0 && { topics }),
        },
      };
    })
    .route('POST', '/faults', ({ body }) => ({ status: 201, body: sim.faults.add(faultSpecFrom(sim, body)) }))
    .route('GET', '/faults', () => ({ status: 200, body: { faults: sim.faults.list() } }))
    .route('DELETE', '/faults', () => ({ status: 200, body: { removed: sim.faults.clear() } }))
    .route('GET', '/faults/:id', ({ params }) => ({ status: 200, body: sim.faults.get(faultId(sim, params.id)) }))
    .route('DELETE', '/faults/:id', ({ params }) => {
      const id = faultId(sim, params.id);
      const fault = sim.faults.get(id);
      sim.faults.remove(id);
      return { status: 200, body: fault };
    });
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body, null, 2) + '\n';
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

async function readBody(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new ControlError(413, `body over ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk as Buffer);
  }
  if (size === 0) return undefined;
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new ControlError(400, 'body is not JSON');
  }
}

/** Serves `router` (by default the simulator's routes) on loopback. */
export async function startControlServer(
  sim: Simulator,
  opts: ControlServerOptions = {},
  router = simulatorRoutes(sim),
): Promise<ControlServer> {
  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        const url = new URL(req.url ?? '/', 'http://control');
        const found = router.match(req.method ?? 'GET', url.pathname);
        if (found === null) throw new ControlError(404, `no route ${req.method} ${url.pathname}`);
        if (found === 'method') throw new ControlError(405, `${req.method} is not allowed on ${url.pathname}`);
        const body = await readBody(req);
        const out = await found.handler({ params: found.params, query: url.searchParams, body });
        send(res, out.status, out.body);
      } catch (err) {
        if (err instanceof ControlError) send(res, err.status, { error: err.message });
        else send(res, 500, { error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    router,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** SIM_CONTROL_PORT / --control-port: a TCP port 0-65535 (0 = any free one), or an error text. */
export function parseControlPort(raw: string | undefined): number | undefined | { error: string } {
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > 65535) return { error: `control port must be a whole number from 0 to 65535, got '${raw}'` };
  return n;
}
