import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fuzz } from '../../../../test/support/fuzz.ts';
import { CsvLineParser } from './csvLines.ts';
import { parseJsonLine } from './jsonLines.ts';
import { LineSplitter } from './lineSplitter.ts';
import { parseNmeaSentence, xorChecksum } from './nmea.ts';

const withChecksum = (body: string): string => `$${body}*${xorChecksum(body).toString(16).toUpperCase().padStart(2, '0')}`;
const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('LineSplitter', () => {
  it('gives the same lines whatever the chunking, for LF and CRLF', () => {
    fuzz(
      [
        fc.array(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 30 }).filter((s) => !/[\r\n]/.test(s))),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 17 })),
      ],
      (lines, crlf, cuts) => {
        const stream = bytes(lines.map((line) => `${line}${crlf ? '\r\n' : '\n'}`).join(''));
        const splitter = new LineSplitter();
        const events = [];
        let offset = 0;
        for (const cut of [...cuts, stream.length]) {
          events.push(...splitter.push(stream.subarray(offset, offset + cut)));
          offset += cut;
        }
        expect(events).toEqual(lines.map((text) => ({ kind: 'line', text })));
      },
      { runs: 300 },
    );
  });

  it('drops an over-long line, reports it, and goes on', () => {
    const splitter = new LineSplitter(16);
    expect(splitter.push(bytes(`${'x'.repeat(100)}\nok\n`))).toEqual([
      { kind: 'overlong', droppedBytes: 100 },
      { kind: 'line', text: 'ok' },
    ]);
  });
});

describe('NMEA', () => {
  it('reads a GGA fix', () => {
    const result = parseNmeaSentence('$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*47');
    expect(result).toEqual({
      ok: true,
      sentence: {
        kind: 'gga',
        talker: 'GP',
        timeOfDaySecs: 12 * 3600 + 35 * 60 + 19,
        latitudeDeg: expect.closeTo(48.1173, 4),
        longitudeDeg: expect.closeTo(11.516667, 5),
        fixQuality: 1,
        satellites: 8,
        hdop: 0.9,
        altitudeM: 545.4,
        geoidSeparationM: 46.9,
      },
    });
  });

  it('reads an RMC fix with its UTC stamp and speed', () => {
    const result = parseNmeaSentence('$GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,230394,003.1,W*6A');
    expect(result).toMatchObject({
      ok: true,
      sentence: { kind: 'rmc', valid: true, stampMs: Date.UTC(1994, 2, 23, 12, 35, 19), speedMps: expect.closeTo(22.4 * 0.514444, 4), courseDeg: 84.4 },
    });
  });

  it('reads a receiver without a fix as NaN, not as an error', () => {
    const result = parseNmeaSentence(withChecksum('GNGGA,,,,,,0,00,99.99,,,,,,'));
    expect(result).toMatchObject({ ok: true, sentence: { fixQuality: 0, latitudeDeg: Number.NaN, timeOfDaySecs: Number.NaN } });
  });

  it('rejects a wrong checksum, southern and western hemispheres come out negative', () => {
    expect(parseNmeaSentence('$GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,*48')).toMatchObject({ ok: false, reason: 'checksum' });
    const south = parseNmeaSentence(withChecksum('GPRMC,000000,V,3345.000,S,15112.000,W,0,0,010120,,,N'));
    expect(south).toMatchObject({ ok: true, sentence: { valid: false, latitudeDeg: -33.75, longitudeDeg: -151.2 } });
  });

  it('never throws on garbage, and says why it refused', () => {
    fuzz(
      [fc.string({ maxLength: 120 })],
      (line) => {
        const result = parseNmeaSentence(line);
        if (!result.ok) expect(result.detail.length).toBeGreaterThan(0);
      },
      { runs: 2000 },
    );
    fuzz(
      [fc.array(fc.constantFrom('', '1', '4807.038', 'N', 'E', 'A', 'x', '999', '-1', '12.5'), { maxLength: 16 }), fc.constantFrom('GPGGA', 'GNRMC')],
      (fields, head) => {
        const result = parseNmeaSentence(withChecksum([head, ...fields].join(',')));
        if (result.ok) expect(['gga', 'rmc']).toContain(result.sentence.kind);
        else expect(result.reason).toBe('malformed');
      },
      { runs: 1000 },
    );
  });
});

describe('CSV lines', () => {
  it('reads a header and numeric records, and names what is wrong', () => {
    const parser = new CsvLineParser();
    expect(parser.parse('t_ms,left_ticks,vbat')).toEqual({ kind: 'header', columns: ['t_ms', 'left_ticks', 'vbat'] });
    expect(parser.parse('10, -5, 7.42')).toEqual({ kind: 'record', record: { t_ms: 10, left_ticks: -5, vbat: 7.42 } });
    expect(parser.parse('11,nan,inf')).toEqual({ kind: 'record', record: { t_ms: 11, left_ticks: Number.NaN, vbat: Number.POSITIVE_INFINITY } });
    expect(parser.parse('12,3')).toMatchObject({ kind: 'error', detail: expect.stringContaining('2 fields') });
    expect(parser.parse('12,three,4')).toMatchObject({ kind: 'error', detail: expect.stringContaining('left_ticks') });
    expect(parser.parse('# comment')).toEqual({ kind: 'skipped' });
  });

  it('never throws on garbage', () => {
    fuzz(
      [fc.array(fc.string({ maxLength: 60 }), { maxLength: 10 })],
      (lines) => {
        const parser = new CsvLineParser();
        for (const line of lines) expect(['record', 'header', 'skipped', 'error']).toContain(parser.parse(line).kind);
      },
      { runs: 1000 },
    );
  });
});

describe('JSON lines', () => {
  it('flattens nested readings into dotted names', () => {
    expect(parseJsonLine('{"t":1,"imu":{"ax":0.5,"gyro":[1,2,3]},"ok":true}')).toEqual({
      ok: true,
      record: { t: 1, 'imu.ax': 0.5, 'imu.gyro.0': 1, 'imu.gyro.1': 2, 'imu.gyro.2': 3, ok: true },
    });
    expect(parseJsonLine('[1,2]')).toMatchObject({ ok: false, detail: expect.stringContaining('array') });
    expect(parseJsonLine('{"a":')).toMatchObject({ ok: false, detail: expect.stringContaining('not JSON') });
  });

  it('never throws on garbage or deep nesting', () => {
    fuzz(
      [fc.oneof(fc.string({ maxLength: 80 }), fc.json({ maxDepth: 12 }))],
      (line) => {
        const result = parseJsonLine(line);
        if (!result.ok) expect(result.detail.length).toBeGreaterThan(0);
      },
      { runs: 1000 },
    );
  });
});
