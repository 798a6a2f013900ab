// Latency summaries. Percentiles by nearest rank on sorted samples (milliseconds).
export interface Summary {
  n: number;
  p50: number;
  p95: number;
  p99: number;
  mean: number;
  max: number;
}

export function summarize(samples: number[]): Summary {
  if (samples.length === 0) return { n: 0, p50: NaN, p95: NaN, p99: NaN, mean: NaN, max: NaN };
  const s = [...samples].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { n: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length, max: s[s.length - 1]! };
}

export const round = (x: number, digits = 2) => (Number.isFinite(x) ? Number(x.toFixed(digits)) : x);
