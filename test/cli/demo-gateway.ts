// A gateway as `npm run dev` runs it (src/main.ts, embedded demo cluster with data), with one
// bearer token per role, for the CLI and browser tests that talk to it over real HTTP.
import { generateToken, sha256Hex } from '../../src/http/auth/tokens.js';
import { spawnGateway, type GatewayProcess } from '../http/gateway-process.js';

export interface DemoGateway {
  url: string;
  token: { viewer: string; operator: string; admin: string };
  process: GatewayProcess;
  stop(): Promise<void>;
}

export async function startDemoGateway(env: Record<string, string> = {}): Promise<DemoGateway> {
  const token = { viewer: generateToken(), operator: generateToken(), admin: generateToken() };
  const tokens = Object.entries(token)
    .map(([role, t]) => `${role}-user:${role}:${sha256Hex(t)}`)
    .join(',');
  const proc = spawnGateway({ GATEWAY_TOKENS: tokens, RECONCILE_INTERVAL_MS: '250', ...env });
  const url = await proc.url;
  return {
    url,
    token,
    process: proc,
    async stop() {
      if (proc.child.exitCode === null) proc.child.kill('SIGTERM');
      await proc.exited;
    },
  };
}
