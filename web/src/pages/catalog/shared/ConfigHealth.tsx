import '../../health/health.css';

const HEALTH: Record<string, ['green' | 'red' | 'orange' | 'grey', string]> = {
  healthy: ['green', 'Healthy'],
  unhealthy: ['red', 'Unhealthy'],
  warning: ['orange', 'Warning'],
};

/** A config item's health as a coloured dot named by its meaning; anything
 * else (unknown, none) is grey 'Unknown'. */
export function ConfigHealth({ health }: { health: string | null | undefined }) {
  const [color, label] = HEALTH[health ?? ''] ?? ['grey', 'Unknown'];
  return <span className={`qd-status-dot qd-status-dot-${color}`} role="img" aria-label={label} title={label} />;
}
