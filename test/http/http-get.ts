// A plain GET on a fresh connection (no keep-alive agent), for tests that watch a server
// drain and close: a pooled connection would hide whether new connections are refused.
import { request as httpRequest } from 'node:http';

export function httpGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
