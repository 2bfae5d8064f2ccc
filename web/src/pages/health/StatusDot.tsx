import type { GroupStatus } from './healthGroups';

type Color = 'green' | 'red' | 'orange' | 'grey';

const CHECK: Record<string, [Color, string]> = {
  healthy: ['green', 'Healthy'],
  unhealthy: ['red', 'Unhealthy'],
};
const NOT_RUN: [Color, string] = ['grey', 'Not run yet'];

const GROUP: Record<GroupStatus, [Color, string]> = {
  good: ['green', 'All healthy'],
  bad: ['red', 'All unhealthy'],
  mixed: ['orange', 'Some unhealthy'],
};

/** A check's status as a coloured dot: green healthy,
 * red unhealthy, grey not run yet. */
export function statusOf(status: string | null | undefined): [Color, string] {
  return CHECK[status ?? ''] ?? NOT_RUN;
}

/** A coloured dot with its meaning as its accessible name (a plain span: a
 * table shows hundreds of them). */
export function StatusDot({ status, group }: { status?: string | null; group?: GroupStatus }) {
  const [color, label] = group ? GROUP[group] : statusOf(status);
  return <span className={`qd-status-dot qd-status-dot-${color}`} role="img" aria-label={label} title={label} />;
}
