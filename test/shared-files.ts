// Tests that read Kafka's own material from ../shared (message specs, controller vectors)
// skip with a reason on a developer's machine without it. In CI (CI=true) the material must be
// there: a missing ../shared would otherwise turn a fidelity check into a silent skip.
import { existsSync } from 'node:fs';

/**
 * The `skip` option of a test that needs `path`: false when it exists; a reason to skip when it
 * does not, outside CI. With CI=true a missing path is not skipped: the test runs and its first
 * step, `assertShared`, fails naming the path.
 */
export function skipWithoutShared(path: string, what: string): false | string {
  if (existsSync(path) || process.env.CI === 'true') return false;
  return `${what} not at ${path} (it lives in ../shared beside the repository)`;
}

/** First line of such a test: fails, naming the path, when the material is missing (CI). */
export function assertShared(path: string, what: string): void {
  if (!existsSync(path)) throw new Error(`CI=true and ${what} is missing: ${path} (clone ../shared beside the repository)`);
}
