import { describe, expect, it } from 'vitest';
import { layoutGraph, NODE_WIDTH, type RelatedItem } from './layout';

const root = { id: 'root', name: 'deploy', type: 'Kubernetes::Deployment', health: 'healthy' };

function rel(id: string, direction: string, depth: number, via: string[]): RelatedItem {
  return { id, name: id, type: 'Kubernetes::Pod', health: null, direction, relation: 'parent', depth, via_ids: via };
}

describe('layoutGraph', () => {
  it('puts incoming hops left of the item and outgoing hops right of it', () => {
    const layout = layoutGraph(root, [
      rel('ns', 'incoming', 1, ['root']),
      rel('rs', 'outgoing', 1, ['root']),
      rel('pod', 'outgoing', 2, ['rs']),
    ]);
    const byX = [...layout.nodes].sort((a, b) => a.x - b.x).map((n) => n.item.id);
    expect(byX).toEqual(['ns', 'root', 'rs', 'pod']);
    expect(layout.columns.map((c) => c.label).sort()).toEqual(['Incoming, 1 hop', 'Item', 'Outgoing, 1 hop', 'Outgoing, 2 hops']);
    expect(layout.nodes.filter((n) => n.isRoot).map((n) => n.item.id)).toEqual(['root']);
    expect(layout.width).toBe(Math.max(...layout.nodes.map((n) => n.x)) + NODE_WIDTH);
  });

  it('draws a link for each item it is reached through, from the linking item', () => {
    const layout = layoutGraph(root, [
      rel('a', 'outgoing', 1, ['root']),
      rel('b', 'outgoing', 1, ['root']),
      rel('node', 'outgoing', 2, ['a', 'b']),
      rel('ns', 'incoming', 1, ['root']),
      rel('gone', 'outgoing', 2, ['filtered-out']),
    ]);
    expect(layout.edges.map((e) => e.key).sort()).toEqual(['a>node', 'b>node', 'root>a', 'root>b', 'root>ns']);
    const pos = new Map(layout.nodes.map((n) => [n.item.id, n]));
    // An incoming link runs from the relating item (left) into the item.
    const ns = layout.edges.find((e) => e.key === 'root>ns');
    expect(ns?.d.startsWith(`M${(pos.get('ns')?.x ?? 0) + NODE_WIDTH},`)).toBe(true);
  });

  it('keeps children next to their parent and never overlaps nodes', () => {
    const related = [
      rel('rs1', 'outgoing', 1, ['root']),
      rel('rs2', 'outgoing', 1, ['root']),
      rel('rs3', 'outgoing', 1, ['root']),
      rel('p1', 'outgoing', 2, ['rs3']),
      rel('p2', 'outgoing', 2, ['rs1']),
      rel('p3', 'outgoing', 2, ['rs3']),
    ];
    const layout = layoutGraph(root, related);
    const y = new Map(layout.nodes.map((n) => [n.item.id, n.y]));
    const column2 = layout.nodes.filter((n) => n.item.id.startsWith('p')).sort((a, b) => a.y - b.y);
    expect(column2.map((n) => n.item.id)).toEqual(['p2', 'p1', 'p3']);
    expect(y.get('p2')).toBe(y.get('rs1'));
    expect(new Set(layout.nodes.map((n) => `${n.x},${n.y}`)).size).toBe(layout.nodes.length);
    expect(layout.height).toBeGreaterThan(Math.max(...layout.nodes.map((n) => n.y)));
  });

  it('lays out 500 relationships', () => {
    const related = Array.from({ length: 500 }, (_, i) =>
      i < 100 ? rel(`r${i}`, 'outgoing', 1, ['root']) : rel(`c${i}`, 'outgoing', 2, [`r${i % 100}`]),
    );
    const layout = layoutGraph(root, related);
    expect(layout.nodes).toHaveLength(501);
    expect(layout.edges).toHaveLength(500);
    expect(new Set(layout.nodes.map((n) => `${n.x},${n.y}`)).size).toBe(501);
  });
});
