import type { CSSProperties } from 'react';
import { usePreference } from '../../../app/preferences';
import { TopologyCard } from './TopologyCard';
import type { TopologyComponent } from './types';
import './topology.css';

/** Components as cards in a wrapping grid, each as wide as the card width
 * preference says (they follow it live). */
export function TopologyCards({
  components,
  label,
  href,
}: {
  components: readonly TopologyComponent[];
  label: string;
  href?: (id: string) => string;
}) {
  const [width] = usePreference('topologyCardWidth');
  return (
    <ul className="qd-topology-cards" aria-label={label} style={{ '--qd-topology-card-width': `${width}px` } as CSSProperties}>
      {components.map((component) => (
        <li key={component.id}>
          <TopologyCard component={component} href={href} />
        </li>
      ))}
    </ul>
  );
}
