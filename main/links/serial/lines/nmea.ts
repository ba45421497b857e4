// NMEA 0183 GGA (fix) and RMC (recommended minimum) sentences from a GNSS receiver, checksum
// verified. Any talker (GP, GN, GL, GA, GB, …) is accepted; other sentence types are reported as
// unsupported, not as errors in the data.

export interface GgaFix {
  kind: 'gga';
  talker: string;
  /** UTC seconds since midnight; NaN when the receiver has no time yet. */
  timeOfDaySecs: number;
  /** NaN without a fix. */
  latitudeDeg: number;
  longitudeDeg: number;
  /** 0 none, 1 GPS, 2 DGPS, 4 RTK fixed, 5 RTK float, 6 dead reckoning, … */
  fixQuality: number;
  satellites: number;
  hdop: number;
  altitudeM: number;
  geoidSeparationM: number;
}

export interface RmcFix {
  kind: 'rmc';
  talker: string;
  /** The receiver's own verdict: A (valid) or V (warning). */
  valid: boolean;
  /** UTC time of the fix, ms since the epoch; NaN when date or time is missing. */
  stampMs: number;
  latitudeDeg: number;
  longitudeDeg: number;
  speedMps: number;
  /** Course over ground, degrees clockwise from true north; NaN when not moving. */
  courseDeg: number;
}

export type NmeaParse = { ok: true; sentence: GgaFix | RmcFix } | { ok: false; reason: 'checksum' | 'malformed' | 'unsupported'; detail: string };

const SENTENCE = /^\$([A-Z]{2})([A-Z]{3}),([\x20-\x7e]*)\*([0-9A-Fa-f]{2})$/;
const KNOTS_TO_MPS = 1852 / 3600;

export function parseNmeaSentence(line: string): NmeaParse {
  const match = SENTENCE.exec(line.trim());
  if (!match) return { ok: false, reason: 'malformed', detail: `not an NMEA sentence ($TTSSS,…*HH): ${preview(line)}` };
  const [, talker = '', type = '', body = '', checksumText = ''] = match;
  const computed = xorChecksum(`${talker}${type},${body}`);
  const sent = Number.parseInt(checksumText, 16);
  if (computed !== sent) {
    return { ok: false, reason: 'checksum', detail: `checksum ${hex(sent)} sent, ${hex(computed)} computed: ${preview(line)}` };
  }
  const fields = body.split(',');
  if (type === 'GGA') return parseGga(talker, fields);
  if (type === 'RMC') return parseRmc(talker, fields);
  return { ok: false, reason: 'unsupported', detail: `${talker}${type} sentences are not read (only GGA and RMC)` };
}

/** XOR of every character between '$' and '*'. */
export function xorChecksum(text: string): number {
  let checksum = 0;
  for (let i = 0; i < text.length; i++) checksum ^= text.charCodeAt(i) & 0xff;
  return checksum;
}

function parseGga(talker: string, fields: string[]): NmeaParse {
  if (fields.length < 14) return { ok: false, reason: 'malformed', detail: `GGA has ${fields.length} fields, needs 14` };
  const [time, lat, ns, lon, ew, quality, satellites, hdop, altitude, , separation] = fields;
  const position = parsePosition(lat ?? '', ns ?? '', lon ?? '', ew ?? '');
  if (typeof position === 'string') return { ok: false, reason: 'malformed', detail: `GGA ${position}` };
  return {
    ok: true,
    sentence: {
      kind: 'gga',
      talker,
      timeOfDaySecs: parseTimeOfDay(time ?? ''),
      ...position,
      fixQuality: optionalNumber(quality) ?? 0,
      satellites: optionalNumber(satellites) ?? 0,
      hdop: optionalNumber(hdop) ?? Number.NaN,
      altitudeM: optionalNumber(altitude) ?? Number.NaN,
      geoidSeparationM: optionalNumber(separation) ?? Number.NaN,
    },
  };
}

function parseRmc(talker: string, fields: string[]): NmeaParse {
  if (fields.length < 11) return { ok: false, reason: 'malformed', detail: `RMC has ${fields.length} fields, needs at least 11` };
  const [time, status, lat, ns, lon, ew, speedKnots, course, date] = fields;
  if (status !== 'A' && status !== 'V') return { ok: false, reason: 'malformed', detail: `RMC status "${status}" is neither A nor V` };
  const position = parsePosition(lat ?? '', ns ?? '', lon ?? '', ew ?? '');
  if (typeof position === 'string') return { ok: false, reason: 'malformed', detail: `RMC ${position}` };
  return {
    ok: true,
    sentence: {
      kind: 'rmc',
      talker,
      valid: status === 'A',
      stampMs: parseStampMs(date ?? '', time ?? ''),
      ...position,
      speedMps: (optionalNumber(speedKnots) ?? Number.NaN) * KNOTS_TO_MPS,
      courseDeg: optionalNumber(course) ?? Number.NaN,
    },
  };
}

/** ddmm.mmmm / dddmm.mmmm with hemisphere letters; empty fields (no fix) give NaN. */
function parsePosition(lat: string, ns: string, lon: string, ew: string): { latitudeDeg: number; longitudeDeg: number } | string {
  if (lat === '' && lon === '') return { latitudeDeg: Number.NaN, longitudeDeg: Number.NaN };
  const latitudeDeg = degreesMinutes(lat, 2);
  const longitudeDeg = degreesMinutes(lon, 3);
  if (Number.isNaN(latitudeDeg) || latitudeDeg > 90) return `latitude "${lat}" is not ddmm.mmmm within 90°`;
  if (Number.isNaN(longitudeDeg) || longitudeDeg > 180) return `longitude "${lon}" is not dddmm.mmmm within 180°`;
  if (ns !== 'N' && ns !== 'S') return `hemisphere "${ns}" is neither N nor S`;
  if (ew !== 'E' && ew !== 'W') return `hemisphere "${ew}" is neither E nor W`;
  return { latitudeDeg: ns === 'S' ? -latitudeDeg : latitudeDeg, longitudeDeg: ew === 'W' ? -longitudeDeg : longitudeDeg };
}

function degreesMinutes(text: string, degreeDigits: number): number {
  if (!new RegExp(`^\\d{${degreeDigits}}\\d{2}(\\.\\d+)?$`).test(text)) return Number.NaN;
  const minutes = Number(text.slice(degreeDigits));
  return minutes >= 60 ? Number.NaN : Number(text.slice(0, degreeDigits)) + minutes / 60;
}

function parseTimeOfDay(text: string): number {
  const match = /^(\d{2})(\d{2})(\d{2}(?:\.\d+)?)$/.exec(text);
  if (!match) return Number.NaN;
  const [hours, minutes, seconds] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return hours < 24 && minutes < 60 && seconds < 61 ? hours * 3600 + minutes * 60 + seconds : Number.NaN;
}

function parseStampMs(date: string, time: string): number {
  const match = /^(\d{2})(\d{2})(\d{2})$/.exec(date);
  const secondsOfDay = parseTimeOfDay(time);
  if (!match || Number.isNaN(secondsOfDay)) return Number.NaN;
  const [day, month, year2] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (day < 1 || day > 31 || month < 1 || month > 12) return Number.NaN;
  // Two-digit years: 80–99 are the 1900s (NMEA predates 2000), the rest 2000s.
  const year = year2 >= 80 ? 1900 + year2 : 2000 + year2;
  return Date.UTC(year, month - 1, day) + secondsOfDay * 1000;
}

function optionalNumber(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

function hex(value: number): string {
  return value.toString(16).toUpperCase().padStart(2, '0');
}

function preview(line: string): string {
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
}
