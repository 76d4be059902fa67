// Import rules checked by test/architecture.test.ts (dependency-cruiser), so CI fails on a
// cycle or on an import that points the wrong way. Layers (README, Architecture):
//   src/http -> application services (src/reconcile, ...) -> src/domain, src/kafka, src/state
// src/main.ts wires everything, src/config.ts reads the environment for every layer and
// src/healthcheck.ts is the image's probe: they sit on top.
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
      from: { path: '^src/', pathNot: ['^src/http/', '^src/client/', '^src/main\\.ts$', '^src/config\\.ts$', '^src/healthcheck\\.ts$'] },
      to: { path: '^src/http/' },
    },
    {
      name: 'client-imports-only-the-contract',
      severity: 'error',
      comment: 'src/client (the typed HTTP client of the console and the CLI) is a consumer of the API: of src/http it may use only the types generated from openapi.yaml.',
      from: { path: '^src/client/' },
      to: { path: '^src/http/', pathNot: '^src/http/openapi-types\\.ts$' },
    },
    {
      name: 'domain-is-pure',
      severity: 'error',
      comment: 'src/domain is pure logic on plain data: it imports no Kafka, state, HTTP, service or simulator code.',
      from: { path: '^src/domain/' },
      to: { path: '^src/(kafka|state|http|reconcile|sim)/' },
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
      extensions: ['.ts', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
