import { memo, type CSSProperties, type MouseEvent } from 'react';
import { useNavigate } from 'react-router';
import { usePreference } from '../../../app/preferences';
import { TopologyCard } from './TopologyCard';
import type { TopologyComponent } from './types';
import './topology.css';

/** Follows a plain click on a card's in-app link (`/...`, no target) inside
 * the app: one handler for all cards, where a router Link per card took about
 * half of the render time of 500 cards. */
function useFollowLinks() {
  const navigate = useNavigate();
  return (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.altKey || event.ctrlKey || event.shiftKey) return;
    const link = event.target instanceof Element ? event.target.closest('a') : null;
    const href = link?.getAttribute('href');
    if (!link || link.target || !href?.startsWith('/')) return;
    event.preventDefault();
    void navigate(href);
  };
}

/** Components as cards in a wrapping grid, each as wide as the card width
 * preference says (they follow it live). Memoized: a page re-renders as its
 * other calls answer, and the same components need no new cards. */
export const TopologyCards = memo(function TopologyCards({
  components,
  label,
  href,
}: {
  components: readonly TopologyComponent[];
  label: string;
  href?: (id: string) => string;
}) {
  const [width] = usePreference('topologyCardWidth');
  const followLink = useFollowLinks();
  return (
    <ul
      className="qd-topology-cards"
      aria-label={label}
      style={{ '--qd-topology-card-width': `${width}px` } as CSSProperties}
      onClick={followLink}
    >
      {components.map((component) => (
        <li key={component.id}>
          <TopologyCard component={component} href={href} />
        </li>
      ))}
    </ul>
  );
});
