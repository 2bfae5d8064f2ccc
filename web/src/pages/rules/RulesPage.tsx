import { Button, Label, PageSection } from '@patternfly/react-core';
import { useNavigate } from 'react-router';
import { useSession } from '../../app/session';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { RULES_PATH, rulePath } from './ruleKind';
import { useRulesData, type RuleRow } from './useRulesData';

function priority(row: RuleRow): string {
  const value = (row.spec as { priority?: unknown } | null)?.priority;
  return typeof value === 'number' ? String(value) : '';
}

const COLUMNS: Column<RuleRow>[] = [
  {
    title: 'Name',
    cell: (row) => (
      <>
        {row.name} <Label isCompact>{row.namespace}</Label>
      </>
    ),
  },
  { title: 'Priority', cell: priority },
  {
    title: 'Created By',
    cell: (row) => (
      <>
        {row.created_by?.name ?? ''} <CrdBadge source={row.source} />
      </>
    ),
  },
  { title: 'Created', cell: (row) => <DateTime value={row.created_at} /> },
  { title: 'Updated', cell: (row) => <DateTime value={row.updated_at} /> },
];

function Rules() {
  const { list } = useRulesData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  useTopBar('Rules', list.refetch, list.isFetching);
  return (
    <PageSection>
      <DataTable
        aria-label="Incident rules"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading incident rules"
        rowKey={(row) => row.id}
        onRowClick={(row) => navigate(rulePath(row.id))}
        toolbar={authorizer.can('incident', 'write') && <Button onClick={() => navigate(`${RULES_PATH}/new`)}>Add Rule</Button>}
      />
    </PageSection>
  );
}

/** The incident rules, each opening its editor. */
export default function RulesPage() {
  return (
    <RequireAccess resource="incident" feature="settings.rules">
      <Rules />
    </RequireAccess>
  );
}
