// Import rules checked by test/architecture.test.ts (dependency-cruiser), so CI fails on a
// cycle or on an import that points the wrong way. Layers (README, Architecture):
//   src/http -> application services (src/services, src/reconcile, src/plan) -> src/domain, src/kafka, src/state
// src/http imports the services and its own helpers: nothing of src/kafka or src/state, and of
// src/domain only types (src/services/index.ts composes the services; src/main.ts builds them).
// src/main.ts wires everything (the composition root: the only module that names the Kafka
// implementation), src/config.ts reads the environment for every layer and src/healthcheck.ts
// is the image's probe: they sit on top. src/sim, the Kafka simulator, stands apart: it shares
// no code with the gateway (but Kafka's error-code table, data checked against Kafka's own
// material), so the two cannot share a bug.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: modules that cannot be understood, tested or loaded one at a time.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'nothing-below-http-imports-http',
      severity: 'error',
      comment: 'Only src/http (and the entry points) may import src/http: services return typed outcomes and http maps them.',
      // src/worker: the reassignment worker thread's composition root and the HTTP thread's side of it (beside main.ts).
      from: {
        path: '^src/',
        pathNot: ['^src/http/', '^src/client/', '^src/main\\.ts$', '^src/worker/', '^src/config\\.ts$', '^src/healthcheck\\.ts$'],
      },
      to: { path: '^src/http/' },
    },
    {
      name: 'client-imports-only-the-contract',
      severity: 'error',
      comment:
        'src/client (the typed HTTP client of the console and the CLI) is a consumer of the API: of src/http it may use only the types generated from openapi.yaml.',
      from: { path: '^src/client/' },
      to: { path: '^src/http/', pathNot: '^src/http/openapi-types\\.ts$' },
    },
    {
      name: 'services-do-not-import-http',
      severity: 'error',
      comment:
        'Services (src/services, src/reconcile, src/plan) return typed outcomes; src/http maps them to statuses. (nothing-below-http-imports-http covers this too; this names the layer.)',
      from: { path: '^src/(services|reconcile|plan)/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'http-imports-services-only',
      severity: 'error',
      comment:
        'src/http parses and validates, calls a service (src/services) and maps its outcome to a status: it never reaches past the services into src/kafka or src/state (not even for a type: the services export the types of their inputs and outcomes).',
      from: { path: '^src/http/' },
      to: { path: '^src/(kafka|state)/' },
    },
    {
      name: 'http-imports-only-types-of-domain',
      severity: 'error',
      comment:
        "Of src/domain, src/http imports types only (`import type`): the domain's logic runs in the services, behind their typed outcomes.",
      from: { path: '^src/http/' },
      to: { path: '^src/domain/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain is pure logic on plain data: of src/ it imports nothing but src/domain.',
      from: { path: '^src/domain/' },
      to: { path: '^src/', pathNot: '^src/domain/' },
    },
    {
      name: 'kafka-and-state-below-services',
      severity: 'error',
      comment: 'src/kafka and src/state are below the services: they import no service, HTTP or entry-point code.',
      from: { path: '^src/(kafka|state)/' },
      to: { path: ['^src/(http|services|reconcile|plan|cli|client|console)/', '^src/(main|config|healthcheck)\\.ts$'] },
    },
    {
      name: 'only-main-names-the-kafka-implementation',
      severity: 'error',
      comment:
        'Services and src/http depend on the KafkaAdmin / KafkaGateway interfaces (src/kafka/kafka-admin.ts, types.ts); only the composition root (src/main.ts) names the implementation (admin.ts), its transport or its per-API modules.',
      // src/worker/reassignment-worker.ts: the worker thread's composition root (its own Kafka connections);
      // src/worker/size-probe.ts: bin/gateway.sh's entry point (one Metadata read, before the gateway starts).
      from: {
        path: '^src/',
        pathNot: ['^src/kafka/', '^src/main\\.ts$', '^src/worker/reassignment-worker\\.ts$', '^src/worker/size-probe\\.ts$'],
      },
      to: { path: ['^src/kafka/(admin|transport|request)\\.ts$', '^src/kafka/apis/'] },
    },
    {
      name: 'sim-stands-apart',
      severity: 'error',
      comment:
        "The simulator owns its broker-side logic (quota maths included) and its protocol codec: it imports nothing of the gateway's code, so a bug cannot be on both sides of a test.",
      from: { path: '^src/sim/' },
      to: {
        path: [
          '^src/(http|services|reconcile|plan|domain|kafka|state|observability|client|cli|console)/',
          '^src/(main|config|env|healthcheck)\\.ts$',
        ],
        // Except Kafka's own tables: error codes and request versions per release, pure data
        // checked against Kafka's material (test/domain/kafka-error-codes.test.ts,
        // test/kafka/release-table.test.ts), so one table serves both sides of the wire.
        pathNot: '^src/domain/kafka-(error-codes|api-versions-by-release)\\.ts$',
      },
    },
    {
      name: 'gateway-does-not-import-sim',
      severity: 'error',
      comment: 'Only the entry point may start the simulator (demo mode); no gateway layer imports it.',
      from: { path: '^src/', pathNot: ['^src/sim/', '^src/main\\.ts$'] },
      to: { path: '^src/sim/' },
    },
    {
      name: 'no-unresolvable',
      severity: 'error',
      comment: 'An import that resolves to nothing.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      // .tsx: the console's pages import each other (src/console/*.tsx).
      extensions: ['.ts', '.tsx', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
