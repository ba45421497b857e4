// TLS in front of a plain WebSocket server, as a robot's nginx or stunnel puts it in front of
// rosbridge_server or foxglove_bridge: a certificate authority and a server certificate for
// localhost/127.0.0.1 made with the openssl CLI in a temporary folder, and a TLS listener that pipes
// each connection to the plain port.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:tls';

export interface TestAuthority {
  folder: string;
  /** The CA's certificate file (PEM): what `--ca` is given. */
  caPath: string;
  caPem: string;
  serverKeyPem: string;
  serverCertPem: string;
  remove(): void;
}

/** Whether the openssl CLI runs here (the tests that need it say so when it does not). */
export function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function makeTestAuthority(): TestAuthority {
  const folder = mkdtempSync(join(tmpdir(), 'reins-tls-'));
  const path = (name: string): string => join(folder, name);
  const openssl = (...args: string[]): void => void execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    path('ca.key'),
    '-out',
    path('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Reins test robot CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  );
  openssl('req', ...ec, '-keyout', path('server.key'), '-out', path('server.csr'), '-subj', '/CN=localhost');
  writeFileSync(path('server.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  openssl(
    'x509',
    '-req',
    '-in',
    path('server.csr'),
    '-CA',
    path('ca.pem'),
    '-CAkey',
    path('ca.key'),
    '-CAcreateserial',
    '-out',
    path('server.pem'),
    '-days',
    '2',
    '-extfile',
    path('server.ext'),
  );
  return {
    folder,
    caPath: path('ca.pem'),
    caPem: readFileSync(path('ca.pem'), 'utf8'),
    serverKeyPem: readFileSync(path('server.key'), 'utf8'),
    serverCertPem: readFileSync(path('server.pem'), 'utf8'),
    remove: () => rmSync(folder, { recursive: true, force: true }),
  };
}

export interface TlsTerminator {
  port: number;
  close(): Promise<void>;
}

/** A TLS listener on a free loopback port whose connections are piped to 127.0.0.1:`targetPort`. */
export async function startTlsTerminator(authority: TestAuthority, targetPort: number): Promise<TlsTerminator> {
  const sockets = new Set<Socket>();
  const server: Server = createServer({ key: authority.serverKeyPem, cert: authority.serverCertPem }, (secure) => {
    const plain = connect(targetPort, '127.0.0.1');
    sockets.add(secure).add(plain);
    secure.pipe(plain).pipe(secure);
    const end = (): void => {
      secure.destroy();
      plain.destroy();
    };
    secure.on('error', end).on('close', end);
    plain.on('error', end).on('close', end);
  });
  // A client refusing the certificate ends the handshake; that is what some tests want to see.
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
