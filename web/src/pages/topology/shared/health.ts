/** Colours of the spec's general health dot (part 2 section 4): degraded,
 * missing, unhealthy or a bad group give red; unknown or suspended grey;
 * warning, warn or a mixed group orange; anything else green. No health at
 * all reads as unknown. */
export type HealthColor = 'green' | 'red' | 'orange' | 'grey';

const COLORS: Record<string, HealthColor> = {
  degraded: 'red',
  missing: 'red',
  unhealthy: 'red',
  bad: 'red',
  unknown: 'grey',
  suspended: 'grey',
  warning: 'orange',
  warn: 'orange',
  mixed: 'orange',
};

export function healthColor(health: string | null | undefined): HealthColor {
  if (!health) return 'grey';
  return COLORS[health.toLowerCase()] ?? 'green';
}

/** 'unhealthy' -> 'Unhealthy'; no health reads 'Unknown'. */
export function healthLabel(health: string | null | undefined): string {
  if (!health) return 'Unknown';
  return health.charAt(0).toUpperCase() + health.slice(1);
}
