// Seeded randomness for the simulated robot. Every random choice (layout, start pose, sensor noise)
// draws from one of these so that a run is reproducible from its seeds alone.

/** Mixes any number of integer or string parts into one 32-bit seed (FNV-1a, then an avalanche). */
export function deriveSeed(...parts: ReadonlyArray<number | string>): number {
  let hash = 0x811c9dc5;
  for (const part of parts) {
    const text = typeof part === 'number' ? `#${part}` : `$${part}`;
    for (let i = 0; i < text.length; i++) {
      hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
    }
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return hash >>> 0;
}

/** mulberry32: tiny, fast and good enough for noise and layouts (not for cryptography). */
export class SeededRandom {
  private state: number;
  private spareGaussian: number | undefined;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  nextUint32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /**
   * Fills `target` with the next `target.length` draws of nextUint32, in order — the same numbers,
   * with the state kept in a local for the length of the loop.
   */
  fillUint32(target: Uint32Array): void {
    let state = this.state;
    for (let index = 0; index < target.length; index++) {
      state = (state + 0x6d2b79f5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      target[index] = t ^ (t >>> 14);
    }
    this.state = state;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  uniform(min: number, max: number): number {
    return min + (max - min) * this.next();
  }

  /** Standard normal sample (Box–Muller; the second value of each pair is kept for the next call). */
  gaussian(): number {
    const spare = this.spareGaussian;
    if (spare !== undefined) {
      this.spareGaussian = undefined;
      return spare;
    }
    // 1 - next() is in (0, 1], so the logarithm is finite.
    const radius = Math.sqrt(-2 * Math.log(1 - this.next()));
    const angle = 2 * Math.PI * this.next();
    this.spareGaussian = radius * Math.sin(angle);
    return radius * Math.cos(angle);
  }

  /** Integer in [0, count). */
  integer(count: number): number {
    return Math.floor(this.next() * count);
  }
}
