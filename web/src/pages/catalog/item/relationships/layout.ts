/** The relationships graph's layout: one column per hop, incoming hops to the
 * left of the item and outgoing hops to its right. Columns are placed from the
 * item outwards, each node as near as free space allows to the middle of the
 * nodes it is reached through, so links run mostly straight; one pass, fine
 * for hundreds of nodes. */
export interface GraphItem {
  id: string;
  name?: string | null;
  type: string;
  health?: string | null;
}

export interface RelatedItem extends GraphItem {
  /** `incoming` or `outgoing`, from the item asked about. */
  direction: string;
  relation: string;
  depth: number;
  /** The items one hop nearer through which this one is reached. */
  via_ids: string[];
}

export interface PlacedNode {
  item: GraphItem;
  x: number;
  y: number;
  isRoot: boolean;
}

export interface GraphEdge {
  key: string;
  /** SVG path data, drawn from the linking item to the linked one. */
  d: string;
}

export interface GraphColumn {
  x: number;
  label: string;
}

export interface GraphLayout {
  nodes: PlacedNode[];
  edges: GraphEdge[];
  columns: GraphColumn[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 240;
export const NODE_HEIGHT = 48;
const GAP_X = 72;
const ROW = NODE_HEIGHT + 12;
const HEADER = 32;

function columnOf(item: RelatedItem): number {
  return item.direction === 'incoming' ? -item.depth : item.depth;
}

function columnLabel(column: number): string {
  if (column === 0) return 'Item';
  const hops = Math.abs(column);
  return `${column < 0 ? 'Incoming' : 'Outgoing'}, ${hops} ${hops === 1 ? 'hop' : 'hops'}`;
}

/** Places the item and its related items (in the API's order: depth, type, name). */
export function layoutGraph(root: GraphItem, related: readonly RelatedItem[]): GraphLayout {
  const byColumn = new Map<number, RelatedItem[]>();
  for (const item of related) {
    const column = columnOf(item);
    const list = byColumn.get(column);
    if (list) list.push(item);
    else byColumn.set(column, [item]);
  }
  const order = [...byColumn.keys()].sort((a, b) => Math.abs(a) - Math.abs(b) || b - a);
  const minColumn = Math.min(0, ...order);
  const xOf = (column: number) => (column - minColumn) * (NODE_WIDTH + GAP_X);

  // Row slots by id; the root sits in slot 0 of column 0.
  const slot = new Map<string, number>([[root.id, 0]]);
  const nodes: PlacedNode[] = [{ item: root, x: xOf(0), y: HEADER, isRoot: true }];
  let rows = 1;
  for (const column of order) {
    const items = (byColumn.get(column) ?? []).map((item, index) => {
      const via = item.via_ids.flatMap((id) => (slot.has(id) ? [slot.get(id) as number] : []));
      const wanted = via.length > 0 ? via.reduce((a, b) => a + b, 0) / via.length : Infinity;
      return { item, wanted, index };
    });
    items.sort((a, b) => a.wanted - b.wanted || a.index - b.index);
    // Items reached through the same items form a group centred on them.
    let next = 0;
    let group: typeof items = [];
    const place = () => {
      const wanted = group[0]?.wanted ?? Infinity;
      let row = Number.isFinite(wanted) ? Math.max(next, Math.round(wanted - (group.length - 1) / 2)) : next;
      for (const { item } of group) {
        slot.set(item.id, row);
        nodes.push({ item, x: xOf(column), y: HEADER + row * ROW, isRoot: false });
        row++;
      }
      next = row;
      group = [];
    };
    for (const entry of items) {
      if (group.length > 0 && group[0]?.wanted !== entry.wanted) place();
      group.push(entry);
    }
    place();
    rows = Math.max(rows, next);
  }

  const placed = new Map(nodes.map((n) => [n.item.id, n]));
  const edges: GraphEdge[] = [];
  for (const item of related) {
    const node = placed.get(item.id) as PlacedNode;
    for (const viaId of item.via_ids) {
      const via = placed.get(viaId);
      if (!via) continue;
      const [from, to] = item.direction === 'incoming' ? [node, via] : [via, node];
      edges.push({ key: `${viaId}>${item.id}`, d: link(from, to) });
    }
  }

  return {
    nodes,
    edges,
    columns: [0, ...order].map((column) => ({ x: xOf(column), label: columnLabel(column) })),
    width: (Math.max(0, ...order) - minColumn + 1) * (NODE_WIDTH + GAP_X) - GAP_X,
    height: HEADER + rows * ROW,
  };
}

/** A curve between the facing sides of two nodes. */
function link(from: PlacedNode, to: PlacedNode): string {
  const rightwards = from.x < to.x;
  const x1 = rightwards ? from.x + NODE_WIDTH : from.x;
  const x2 = rightwards ? to.x : to.x + NODE_WIDTH;
  const y1 = from.y + NODE_HEIGHT / 2;
  const y2 = to.y + NODE_HEIGHT / 2;
  const mid = (x1 + x2) / 2;
  return `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
}
