// Camera previews arrive as tightly packed RGB; canvas ImageData wants RGBA.
export function rgbToRgba(rgb: Uint8Array, rgba: Uint8ClampedArray): void {
  const pixels = Math.min(Math.floor(rgb.length / 3), Math.floor(rgba.length / 4));
  for (let pixel = 0, source = 0, target = 0; pixel < pixels; pixel++, source += 3, target += 4) {
    rgba[target] = rgb[source]!;
    rgba[target + 1] = rgb[source + 1]!;
    rgba[target + 2] = rgb[source + 2]!;
    rgba[target + 3] = 255;
  }
}
