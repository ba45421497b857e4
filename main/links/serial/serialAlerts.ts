// What the serial link tells the operator, in one place: each alert's key, wording and hint.
import type { CoreAlert } from '../../core/alert.ts';
import type { CountedAlertSpec } from '../alertBoard.ts';
import type { FrameFault } from './frames.ts';
import type { ProtocolError } from './protocolMessages.ts';
import type { OpenFailure } from './serialTransport.ts';

export const SERIAL_ALERT_KEYS = Object.freeze({
  port: 'serial-port',
  handshake: 'serial-handshake',
  silent: 'serial-silent',
  version: 'serial-version',
  crc: 'serial-crc',
  garbage: 'serial-garbage',
  unknownType: 'serial-unknown-type',
  badPayload: 'serial-bad-payload',
  framesLost: 'serial-frames-lost',
  deviceError: 'serial-device-error',
  deviceWatchdog: 'serial-device-watchdog',
  commandRefused: 'serial-command-refused',
  commandUnanswered: 'serial-command-unanswered',
  subscriber: 'serial-subscriber',
} as const);

const K = SERIAL_ALERT_KEYS;

export function openFailedAlert(path: string, failure: OpenFailure, detail: string, availablePaths: readonly string[]): CoreAlert {
  const others = availablePaths.length > 0 ? ` Ports present now: ${availablePaths.join(', ')}.` : '';
  const hints: Record<OpenFailure, string> = {
    missing: `Plug the device in, or pick another port.${others} Reins keeps trying.`,
    permission: 'Add your user to the dialout group (sudo usermod -aG dialout $USER), then log in again.',
    busy: 'Another program has the port open (a serial monitor, ModemManager, another Reins): close it.',
    other: 'Check the cable and the port name; Reins keeps trying.',
  };
  return { key: K.port, severity: 'error', message: `Cannot open ${path}: ${detail}`, hint: hints[failure] };
}

export function portLostAlert(path: string): CoreAlert {
  return {
    key: K.port,
    severity: 'error',
    message: `The serial port ${path} went away.`,
    hint: 'Was the cable pulled or the board reset? Reins reconnects as soon as the port is back.',
  };
}

export function handshakeAlert(path: string, baud: number, waitedMs: number): CoreAlert {
  return {
    key: K.handshake,
    severity: 'warn',
    message: `No answer to HELLO on ${path} for ${(waitedMs / 1000).toFixed(1)} s.`,
    hint: `Is the Reins firmware running, at ${baud} baud? An Arduino restarts when the port opens and needs about 2 s.`,
  };
}

export function silentAlert(path: string, silentMs: number): CoreAlert {
  return {
    key: K.silent,
    severity: 'error',
    message: `The device on ${path} has sent nothing for ${(silentMs / 1000).toFixed(1)} s.`,
    hint: 'It may have reset or hung; Reins says HELLO again until it answers. Its own watchdog stops the motors.',
  };
}

export function versionAlert(deviceVersion: number, hostVersion: number): CoreAlert {
  return {
    key: K.version,
    severity: 'error',
    message: `The device speaks serial protocol version ${deviceVersion}; this Reins speaks ${hostVersion}.`,
    hint: 'Update the firmware or Reins so both speak the same version. No commands are sent meanwhile.',
  };
}

export function faultAlert(fault: FrameFault, baud: number): CountedAlertSpec {
  switch (fault.kind) {
    case 'crc-mismatch':
      return counted(
        K.crc,
        'warn',
        (n) => `${n} frame${plural(n)} failed the CRC check (last: ${fault.detail}).`,
        `Line noise or a wrong baud rate: check the cable and ground, and that the device runs at ${baud} baud.`,
      );
    case 'unknown-type':
      return counted(
        K.unknownType,
        'warn',
        (n) => `${n} frame${plural(n)} of a type this Reins does not know (last: ${fault.detail}).`,
        'The firmware is newer than this Reins: update Reins, or flash the matching firmware.',
      );
    case 'bad-payload':
      return counted(
        K.badPayload,
        'warn',
        (n) => `${n} frame${plural(n)} with a malformed payload (last: ${fault.detail}).`,
        'The firmware and Reins disagree about a message layout: flash the firmware that matches this Reins.',
      );
    case 'unsupported-version':
      return counted(
        K.version,
        'error',
        (n) => `${n} frame${plural(n)} of another protocol version (${fault.detail}).`,
        'Update the firmware or Reins so both speak the same version.',
      );
    default:
      return counted(
        K.garbage,
        'warn',
        (n) => `${n} damaged or unframed chunk${plural(n)} on the line (last: ${fault.detail}).`,
        `Something else writes to this port (a boot loader, debug prints), or the baud rate (${baud}) is wrong.`,
      );
  }
}

export function deviceErrorAlert(error: ProtocolError): CountedAlertSpec {
  const hint =
    error.code === 'crc-mismatch' || error.code === 'bad-frame' || error.code === 'rx-overflow'
      ? 'The device received damaged frames from Reins: check the cable, ground and baud rate.'
      : 'The device and Reins disagree about the protocol: flash the firmware that matches this Reins.';
  return counted(`${K.deviceError}-${error.code}`, 'warn', (n) => `The device reported ${error.code}${n > 1 ? ` ${n} times` : ''}: ${error.text}`, hint);
}

export function framesLostAlert(): CountedAlertSpec {
  return counted(
    K.framesLost,
    'info',
    (n) => `${n} frame${plural(n)} from the device never arrived intact.`,
    'A few on a noisy line are harmless; many mean the line is overloaded or noisy.',
  );
}

export function deviceWatchdogAlert(timeoutMs: number): CoreAlert {
  return {
    key: K.deviceWatchdog,
    severity: 'warn',
    message: `The device stopped its motors: it heard no heartbeat for ${timeoutMs} ms.`,
    hint: 'The link was interrupted or Reins stalled. The robot moves again on the next drive command.',
  };
}

export function commandRefusedAlert(result: string): CoreAlert {
  return {
    key: K.commandRefused,
    severity: 'warn',
    message:
      result === 'not-armed' ? 'The device refused a drive command: its heartbeat watchdog had tripped.' : 'The device refused a drive command as invalid.',
    hint: 'Drive again; if it keeps refusing, the link is dropping heartbeats.',
  };
}

export function commandUnansweredAlert(): CountedAlertSpec {
  return counted(
    K.commandUnanswered,
    'warn',
    (n) => `${n} drive command${plural(n)} got no acknowledgement within 1 s.`,
    'Commands are being lost on the way to the device: check the cable and baud rate.',
  );
}

export function subscriberFailedAlert(topic: string, error: unknown): CountedAlertSpec {
  const detail = error instanceof Error ? error.message : String(error);
  return counted(
    `${K.subscriber}:${topic}`,
    'error',
    (n) => `A subscriber to ${topic} failed${n > 1 ? ` ${n} times` : ''}: ${detail}`,
    'A bug in the cockpit; the link keeps delivering to the other subscribers.',
  );
}

function counted(key: string, severity: CoreAlert['severity'], message: (count: number) => string, hint: string): CountedAlertSpec {
  return { key, describe: (count: number): CoreAlert => ({ key, severity, message: message(count), hint }) };
}

function plural(count: number): string {
  return count === 1 ? '' : 's';
}
