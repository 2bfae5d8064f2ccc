import { DataTable, type Column } from '../../../../components/DataTable';
import { ConfigHealth } from '../../shared/ConfigHealth';
import { ConfigLink } from '../../shared/ConfigLink';
import type { RelatedItem } from './layout';

export type RelatedRow = RelatedItem & { status?: string | null };

const COLUMNS: Column<RelatedRow>[] = [
  { title: 'Name', cell: (r) => <ConfigLink id={r.id} name={r.name} type={r.type} /> },
  { title: 'Type', cell: (r) => r.type },
  { title: 'Health', cell: (r) => <ConfigHealth health={r.health} /> },
  { title: 'Status', cell: (r) => r.status ?? '' },
  { title: 'Direction', cell: (r) => (r.direction === 'incoming' ? 'Incoming' : 'Outgoing') },
  { title: 'Relation', cell: (r) => r.relation },
  { title: 'Hops', cell: (r) => r.depth },
];

/** The related items as a table: the graph's accessible alternative, and
 * easier to read for large graphs; paged with the page-size preference. */
export function RelationshipsList({ related }: { related: readonly RelatedRow[] }) {
  return (
    <DataTable
      aria-label="Related items"
      columns={COLUMNS}
      query={{ data: [...related], isLoading: false, error: null }}
      errorTitle="Could not load the related items"
      rowKey={(r) => r.id}
      isPaginated
    />
  );
}
