/**
 * @module rng
 * A small seeded random source (sfc32) with the distributions the demo world needs. Same seed,
 * same world: entity ids, names and figures do not depend on anything but the seed and the scale.
 */

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number | string) {
    // Hash the seed into four 32-bit words (cyrb128) so nearby seeds give unrelated streams.
    let h1 = 1779033703,
      h2 = 3144134277,
      h3 = 1013904242,
      h4 = 2773480762;
    const text = String(seed);
    for (let i = 0; i < text.length; i++) {
      const k = text.charCodeAt(i);
      h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
      h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
      h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
      h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
    }
    h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
    h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
    h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
    h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
    this.a = (h1 ^ h2 ^ h3 ^ h4) >>> 0;
    this.b = (h2 ^ h1) >>> 0;
    this.c = (h3 ^ h1) >>> 0;
    this.d = (h4 ^ h1) >>> 0;
    for (let i = 0; i < 12; i++) this.next();
  }

  /** A derived generator: one stream per concern keeps a change in one part from reshuffling the rest. */
  fork(label: string): Rng {
    return new Rng(`${this.next()}:${label}`);
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.a >>>= 0;
    this.b >>>= 0;
    this.c >>>= 0;
    this.d >>>= 0;
    const t = (this.a + this.b) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.d = (this.d + 1) | 0;
    const r = (t + this.d) | 0;
    this.c = (this.c + r) | 0;
    return (r >>> 0) / 4294967296;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error("pick from an empty list");
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** Picks by weight; weights need not sum to 1. */
  weighted<T>(items: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of items) total += w;
    let r = this.next() * total;
    for (const [item, w] of items) {
      r -= w;
      if (r < 0) return item;
    }
    return items[items.length - 1]![0];
  }

  /** A picker by weight for repeated draws from one list: O(log n) per draw instead of O(n). */
  sampler<T>(items: readonly (readonly [T, number])[]): () => T {
    if (items.length === 0) throw new Error("sampler over an empty list");
    const cumulative = new Float64Array(items.length);
    let total = 0;
    items.forEach(([, w], i) => (cumulative[i] = total += w));
    return () => {
      const r = this.next() * total;
      let lo = 0;
      let hi = items.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cumulative[mid]! > r) hi = mid;
        else lo = mid + 1;
      }
      return items[lo]![0];
    };
  }

  /** `k` distinct items, in random order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const n = Math.min(k, items.length);
    if (n * 4 < items.length) {
      const chosen = new Set<number>();
      while (chosen.size < n) chosen.add(Math.floor(this.next() * items.length));
      return [...chosen].map((i) => items[i]!);
    }
    const copy = items.slice();
    for (let i = 0; i < n; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      [copy[i], copy[j]] = [copy[j]!, copy[i]!];
    }
    return copy.slice(0, n);
  }

  /** Standard normal (Box-Muller). */
  normal(mean = 0, sd = 1): number {
    const u = 1 - this.next();
    const v = this.next();
    return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }

  /** Pareto with scale `min` and shape `alpha`: the power-law sizes of real markets (few large, many small). */
  pareto(min: number, alpha: number): number {
    return min / Math.pow(1 - this.next(), 1 / alpha);
  }

  /** Log-normal around `median`. */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(this.normal(0, sigma));
  }

  /** Index in [0, n) skewed to the front (Zipf-like with exponent `s`), for preferential picks. */
  zipfIndex(n: number, s = 1.1): number {
    // Inverse-CDF of a continuous power law on [1, n+1), good enough for picking "popular" items.
    const u = this.next();
    if (s === 1) return Math.min(n - 1, Math.floor(Math.pow(n + 1, u)) - 1);
    const a = 1 - s;
    const x = Math.pow(1 + u * (Math.pow(n + 1, a) - 1), 1 / a);
    return Math.min(n - 1, Math.max(0, Math.floor(x) - 1));
  }

  hex(bytes: number): string {
    let out = "";
    for (let i = 0; i < bytes; i++) out += this.int(0, 255).toString(16).padStart(2, "0");
    return out;
  }
}
