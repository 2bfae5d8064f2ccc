import { useMemo } from 'react';
import { Link } from 'react-router';
import { ConfigHealth } from '../../shared/ConfigHealth';
import { ConfigIcon } from '../../shared/ConfigIcon';
import { layoutGraph, NODE_HEIGHT, NODE_WIDTH, type GraphItem, type RelatedItem } from './layout';
import './relationships.css';

/** The item and its related items as a layered graph of links to their pages;
 * plain elements placed once, so hundreds of nodes render at once. */
export function RelationshipsGraph({ root, related }: { root: GraphItem; related: readonly RelatedItem[] }) {
  const layout = useMemo(() => layoutGraph(root, related), [root, related]);
  return (
    <div className="qd-rel-graph" role="region" aria-label="Relationships graph" tabIndex={0}>
      <div className="qd-rel-canvas" style={{ width: layout.width, height: layout.height }}>
        {layout.columns.map((c) => (
          <div key={c.label} className="qd-rel-column" style={{ left: c.x, width: NODE_WIDTH }}>
            {c.label}
          </div>
        ))}
        <svg className="qd-rel-links" width={layout.width} height={layout.height} aria-hidden="true">
          <defs>
            <marker id="qd-rel-arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8" markerHeight="8" orient="auto">
              <path d="M0,0 L8,4 L0,8 z" />
            </marker>
          </defs>
          {layout.edges.map((e) => (
            <path key={e.key} d={e.d} markerEnd="url(#qd-rel-arrow)" />
          ))}
        </svg>
        <ul aria-label="Related items">
          {layout.nodes.map(({ item, x, y, isRoot }) => (
            <li key={item.id} className="qd-rel-node" style={{ left: x, top: y, width: NODE_WIDTH, height: NODE_HEIGHT }}>
              <Link to={`/catalog/${item.id}`} className={isRoot ? 'qd-rel-root' : undefined} aria-current={isRoot ? 'page' : undefined}>
                <span className="qd-rel-title">
                  <ConfigIcon type={item.type} />
                  <span className="qd-rel-name" title={item.name ?? item.id}>
                    {item.name ?? item.id}
                  </span>{' '}
                  <ConfigHealth health={item.health} />
                </span>{' '}
                <span className="qd-rel-type">{item.type}</span>
              </Link>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}
