// What the shell (main.tsx) hands every page.
import type { GatewayClient, WhoAmI } from '../../client/api.js';

export interface PageProps {
  api: GatewayClient;
  me: WhoAmI | null;
  /** The bearer token, for the event streams (read with fetch, beside the client). */
  token?: string | null;
}
