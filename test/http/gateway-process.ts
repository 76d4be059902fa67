// Runs the gateway (src/main.ts) as a child process, as production does, for tests of
// startup rules and signal handling. Lines of its JSON log are collected.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));

export interface GatewayProcess {
  child: ChildProcess;
  /** Parsed JSON log lines (stdout). */
  logs: Record<string, unknown>[];
  output(): string;
  /** Resolves with the listening URL, or rejects if the process exits first. */
  url: Promise<string>;
  exited: Promise<number | null>;
}

export function spawnGateway(env: Record<string, string>): GatewayProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  let text = '';
  let resolveUrl!: (u: string) => void;
  let rejectUrl!: (e: Error) => void;
  const url = new Promise<string>((res, rej) => ((resolveUrl = res), (rejectUrl = rej)));
  url.catch(() => {});
  const onData = (chunk: Buffer) => {
    text += chunk.toString();
    for (const line of chunk.toString().split('\n')) {
      if (!line.startsWith('{')) continue;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        logs.push(parsed);
        if (parsed.msg === 'kafka admin gateway listening' && typeof parsed.url === 'string') resolveUrl(parsed.url);
      } catch {
        /* partial line */
      }
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      rejectUrl(new Error(`gateway exited (${code}) before listening:\n${text}`));
      resolve(code);
    }),
  );
  return { child, logs, output: () => text, url, exited };
}
