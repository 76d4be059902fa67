// One request validator for every gateway app of this process. Each createApp builds its own
// express-openapi-validator middleware, which validates openapi.yaml and compiles its schemas at
// the app's first request: ~150-200 ms of CPU per app, most of a chaos run's CPU when every run
// starts two to four instances. The middleware is the same for every app built with the same
// options (it holds only the spec and compiled validators; its one app-bound step, app.param for
// path parameters, is a type coercion the gateway's string ids do not need), so the harness
// hands the first one built to every later app. Behaviour of the gateway is unchanged: the same
// validation runs on every request.
//
// Must be imported before src/http (the ES module namespace of a CommonJS module is taken from
// its exports when it is first imported: the replacement has to be in place by then).
import { createRequire } from 'node:module';

type Middleware = (options: { validateResponses?: unknown }) => unknown;
const require = createRequire(import.meta.url);
const validator = require('express-openapi-validator') as { middleware: Middleware & { __chaosShared?: true } };

if (!validator.middleware.__chaosShared) {
  const build = validator.middleware;
  const built = new Map<string, unknown>();
  const shared: Middleware & { __chaosShared?: true } = (options) => {
    const key = JSON.stringify(options.validateResponses ?? false);
    if (!built.has(key)) built.set(key, build(options));
    return built.get(key);
  };
  shared.__chaosShared = true;
  validator.middleware = shared;
}
