import { describe, expect, it } from 'vitest';
import { FRAME_HEADER_BYTES, decodeBinaryFrame, encodeCameraFrame } from './contract.ts';

describe('camera frames', () => {
  it('carry the source stamp in the header, to the sub-millisecond', () => {
    const rgb = new Uint8Array([10, 20, 30, 40, 50, 60]);
    const bytes = encodeCameraFrame(2, 1, 1_763_733_600_123.25, rgb);
    expect(bytes.length).toBe(FRAME_HEADER_BYTES + rgb.length);
    const frame = decodeBinaryFrame(bytes);
    expect(frame).toMatchObject({ kind: 'camera', width: 2, height: 1, stampMs: 1_763_733_600_123.25 });
    expect(Array.from(frame.kind === 'camera' ? frame.rgb : [])).toEqual(Array.from(rgb));
  });

  it('decode from a view into a larger buffer, as a socket hands them over', () => {
    const bytes = encodeCameraFrame(1, 1, 42, new Uint8Array([1, 2, 3]));
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 8);
    expect(decodeBinaryFrame(padded.subarray(8))).toMatchObject({ kind: 'camera', stampMs: 42 });
  });
});
