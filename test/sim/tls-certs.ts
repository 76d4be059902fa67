// Throwaway PKI for TLS tests, generated with the openssl CLI at test time into a
// temporary directory (private keys are never committed): a CA, a server certificate
// for 127.0.0.1/localhost, client certificates signed by that CA, and a client
// certificate from an unrelated CA (which must be refused).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Pem {
  key: Buffer;
  cert: Buffer;
  keyFile: string;
  certFile: string;
}

export interface TestPki {
  dir: string;
  ca: Pem;
  server: Pem;
  /** Clients signed by `ca`, by CN. */
  clients: Record<string, Pem>;
  /** A client whose certificate comes from another CA. */
  rogueClient: Pem;
  cleanup(): void;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
}

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function selfSignedCa(dir: string, name: string): Pem {
  openssl(dir, ['req', '-x509', ...EC, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-subj', `/CN=${name}`, '-days', '2']);
  return load(dir, name);
}

function signed(dir: string, name: string, cn: string, ca: string, san?: string): Pem {
  openssl(dir, ['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`]);
  const ext = join(dir, `${name}.ext`);
  writeFileSync(ext, san ? `subjectAltName=${san}\n` : 'basicConstraints=CA:FALSE\n');
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${ca}.crt`,
    '-CAkey',
    `${ca}.key`,
    '-set_serial',
    String(Date.now()),
    '-out',
    `${name}.crt`,
    '-days',
    '2',
    '-extfile',
    ext,
  ]);
  return load(dir, name);
}

function load(dir: string, name: string): Pem {
  const keyFile = join(dir, `${name}.key`);
  const certFile = join(dir, `${name}.crt`);
  return { key: readFileSync(keyFile), cert: readFileSync(certFile), keyFile, certFile };
}

export function opensslAvailable(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Client CNs to issue; each may also get a SAN (e.g. "URI:spiffe://corp/ci"). */
export function createTestPki(clients: { cn: string; san?: string }[] = []): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-pki-'));
  try {
    const ca = selfSignedCa(dir, 'ca');
    const server = signed(dir, 'server', 'localhost', 'ca', 'IP:127.0.0.1,DNS:localhost');
    const issued: Record<string, Pem> = {};
    clients.forEach((c, i) => (issued[c.cn] = signed(dir, `client${i}`, c.cn, 'ca', c.san)));
    selfSignedCa(dir, 'rogue-ca');
    const rogueClient = signed(dir, 'rogue-client', clients[0]?.cn ?? 'rogue', 'rogue-ca');
    return { dir, ca, server, clients: issued, rogueClient, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
