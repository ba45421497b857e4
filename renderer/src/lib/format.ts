// Numbers as the operator reads them: fixed decimals, units always, no "-0.00".
function fixed(value: number, decimals: number): string {
  if (!Number.isFinite(value)) return '—';
  const text = value.toFixed(decimals);
  return Number(text) === 0 ? (0).toFixed(decimals) : text;
}

export function formatLinearSpeed(mps: number | undefined): string {
  return mps === undefined ? '—' : `${fixed(mps, 2)} m/s`;
}

export function formatAngularSpeed(radps: number | undefined): string {
  return radps === undefined ? '—' : `${fixed(radps, 2)} rad/s`;
}

export function formatRateHz(hz: number | undefined): string {
  if (hz === undefined || !Number.isFinite(hz)) return '—';
  return `${fixed(hz, hz >= 100 ? 0 : 1)} Hz`;
}

export function formatLatencyMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  return `${fixed(ms, ms >= 100 ? 0 : 1)} ms`;
}

/** Age of a message: milliseconds when fresh, seconds once it is old enough to matter. */
export function formatAge(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '—';
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${fixed(ms / 1000, 1)} s`;
  return `${Math.floor(ms / 60_000)} min`;
}

export function formatMetres(m: number): string {
  return Number.isInteger(m) ? `${m} m` : `${fixed(m, 1)} m`;
}
