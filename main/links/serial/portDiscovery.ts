// Lists the serial ports on this machine, likely robot boards first. On Linux serialport reads
// them through udevadm (Debian package `udev`); without it the list fails with a clear message.
import { SerialPort } from 'serialport';

export interface SerialPortCandidate {
  path: string;
  manufacturer?: string;
  serialNumber?: string;
  vendorId?: string;
  productId?: string;
  /** What the USB vendor suggests the board is, when it is a common microcontroller bridge. */
  likelyBoard?: string;
}

/** USB vendor ids of boards and USB-serial bridges found on hobby and research robots. */
const KNOWN_VENDORS: Readonly<Record<string, string>> = Object.freeze({
  '2341': 'Arduino',
  '2a03': 'Arduino (arduino.org)',
  '1a86': 'CH340 USB-serial (Arduino clones)',
  '0403': 'FTDI USB-serial',
  '10c4': 'Silicon Labs CP210x USB-serial',
  '239a': 'Adafruit',
  '303a': 'Espressif (ESP32)',
  '2e8a': 'Raspberry Pi (RP2040)',
  '16c0': 'Teensy',
  '0483': 'STMicroelectronics',
});

export class PortDiscoveryError extends Error {
  override readonly name = 'PortDiscoveryError';
}

export async function listSerialPorts(): Promise<SerialPortCandidate[]> {
  let ports: Awaited<ReturnType<typeof SerialPort.list>>;
  try {
    ports = await SerialPort.list();
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    const hint = /udevadm|ENOENT/i.test(detail) ? ' Listing serial ports needs udevadm (Debian/Ubuntu: apt install udev).' : '';
    throw new PortDiscoveryError(`Cannot list serial ports: ${detail}.${hint}`);
  }
  const candidates = ports.map((port): SerialPortCandidate => {
    const candidate: SerialPortCandidate = { path: port.path };
    if (port.manufacturer) candidate.manufacturer = port.manufacturer;
    if (port.serialNumber) candidate.serialNumber = port.serialNumber;
    if (port.vendorId) candidate.vendorId = port.vendorId.toLowerCase();
    if (port.productId) candidate.productId = port.productId.toLowerCase();
    const board = candidate.vendorId ? KNOWN_VENDORS[candidate.vendorId] : undefined;
    if (board) candidate.likelyBoard = board;
    return candidate;
  });
  // Known boards first, then USB devices, then built-in UARTs (ttyS*), each by path.
  const rank = (port: SerialPortCandidate): number => (port.likelyBoard ? 0 : port.vendorId ? 1 : 2);
  return candidates.sort((a, b) => rank(a) - rank(b) || a.path.localeCompare(b.path));
}
