import { Link } from 'react-router';
import { DataTable, type Column } from '../../../components/DataTable';
import { relativeAge } from '../../../lib/healthFormat';
import { StatusDot, statusOf } from '../../health/StatusDot';
import { useConfigChecks, type LinkedCheck } from './useConfigChecks';

const COLUMNS: Column<LinkedCheck>[] = [
  {
    title: 'Name',
    cell: (c) => (
      <>
        <StatusDot status={c.status} /> <Link to={`/health?checkId=${encodeURIComponent(c.id)}&timeRange=1h`}>{c.name}</Link>
      </>
    ),
  },
  { title: 'Type', cell: (c) => c.type },
  { title: 'Status', cell: (c) => statusOf(c.status)[1] },
  { title: 'Last run', cell: (c) => relativeAge(c.last_runtime) },
  { title: 'Description', cell: (c) => c.description },
];

/** The health checks linked to the item, each opening its detail on the Health page. */
export function ChecksTab({ configId }: { configId: string }) {
  const checks = useConfigChecks(configId);
  return (
    <DataTable aria-label="Checks" columns={COLUMNS} query={checks} errorTitle="Failed to load checks" rowKey={(c) => c.id} isPaginated />
  );
}
