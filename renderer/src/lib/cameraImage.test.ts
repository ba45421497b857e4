import { describe, expect, it } from 'vitest';
import { rgbToRgba } from './cameraImage.ts';

describe('rgbToRgba', () => {
  it('copies each pixel and makes it opaque', () => {
    const rgba = new Uint8ClampedArray(8);
    rgbToRgba(new Uint8Array([10, 20, 30, 40, 50, 60]), rgba);
    expect([...rgba]).toEqual([10, 20, 30, 255, 40, 50, 60, 255]);
  });
});
