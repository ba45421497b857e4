// Robot URLs for serial devices: serial:/dev/ttyACM0?baud=115200 (serial:COM3 on Windows).

export const DEFAULT_SERIAL_BAUD = 115200;

export interface SerialAddress {
  path: string;
  baud: number;
}

export class SerialUrlError extends Error {
  override readonly name = 'SerialUrlError';
}

export function parseSerialUrl(text: string): SerialAddress {
  if (!text.startsWith('serial:')) throw new SerialUrlError(`${text}: a serial robot URL starts with serial: (serial:/dev/PATH?baud=N)`);
  const [path = '', query = ''] = text.slice('serial:'.length).split('?', 2);
  if (!path.startsWith('/') && !/^COM\d+$/i.test(path)) throw new SerialUrlError(`${text}: expected serial:/dev/PATH?baud=N (or serial:COM3 on Windows)`);
  const params = new URLSearchParams(query);
  for (const key of params.keys()) if (key !== 'baud') throw new SerialUrlError(`${text}: unknown serial option "${key}" (only baud)`);
  const baudText = params.get('baud');
  const baud = baudText === null ? DEFAULT_SERIAL_BAUD : Number(baudText);
  if (!Number.isInteger(baud) || baud < 300 || baud > 4_000_000) {
    throw new SerialUrlError(`${text}: baud must be a whole number between 300 and 4000000, got "${baudText}"`);
  }
  return { path, baud };
}

export function formatSerialUrl(address: SerialAddress): string {
  return `serial:${address.path}?baud=${address.baud}`;
}
