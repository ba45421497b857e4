// `--ca FILE`: the certificate authorities a wss:// robot's certificate is checked against, for a robot
// whose bridge serves TLS with a certificate of its own CA. Read once, when the command starts; a
// missing file, or one that holds no PEM certificate that parses, is said in words.
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';

export class CaFileError extends Error {
  override readonly name = 'CaFileError';
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The file's PEM text, every certificate in it checked; throws a CaFileError naming the problem. */
export function readCaFile(path: string): string {
  if (path.trim() === '') throw new CaFileError('--ca needs the path of a PEM file holding the certificate authority');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a folder, not a file' : code === 'EACCES' ? 'not readable' : String(error);
    throw new CaFileError(`--ca ${path}: ${why}`);
  }
  const blocks = text.match(PEM_CERTIFICATE) ?? [];
  if (blocks.length === 0) {
    throw new CaFileError(
      `--ca ${path}: holds no PEM certificate (expected "-----BEGIN CERTIFICATE-----"; convert a DER file with openssl x509 -inform der -in FILE -out FILE.pem)`,
    );
  }
  blocks.forEach((block, index) => {
    try {
      new X509Certificate(block);
    } catch (error) {
      throw new CaFileError(`--ca ${path}: certificate ${index + 1} does not parse (${error instanceof Error ? error.message : String(error)})`);
    }
  });
  return blocks.join('\n');
}

/** The hint for a connection that failed on the robot's certificate, or undefined for any other failure. */
export function untrustedCertificateHint(reason: string): string | undefined {
  if (!/certificate|self[- ]signed|CERT_|unable to verify|unable to get (local )?issuer/i.test(reason)) return undefined;
  return "The robot's TLS certificate is not trusted: give the certificate authority that signed it with --ca FILE (PEM).";
}
