import '../../health/health.css';
import { healthColor, healthLabel } from './health';

/** A health as the general health dot, named by the health (a plain span:
 * pages show hundreds). */
export function HealthDot({ health }: { health: string | null | undefined }) {
  const label = healthLabel(health);
  return <span className={`qd-status-dot qd-status-dot-${healthColor(health)}`} role="img" aria-label={label} title={label} />;
}
