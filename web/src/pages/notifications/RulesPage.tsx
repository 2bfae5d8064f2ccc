import { Button, Label, PageSection } from '@patternfly/react-core';
import { useCallback, useEffect } from 'react';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { useLiveSearchParams } from '../../app/useLiveSearchParams';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { CrdBadge } from '../../components/Labels';
import { PageSpinner } from '../../components/PageSpinner';
import { RequireAccess } from '../../components/RequireAccess';
import { isUiSource, readOnlyMessage } from '../../lib/source';
import { NotificationsTabs } from './NotificationsTabs';
import { RULES_PATH, type RuleColumns } from './notificationModel';
import { RuleModal } from './RuleModal';
import { useRule, useRulesData, type RuleRow, type RuleSummary } from './useNotificationsData';

/** A count of the summary; null for callers access scopes restrict (decision 90.2). */
const count = (n: number | null) => (n === null ? '' : String(n));

const COLUMNS: Column<RuleSummary>[] = [
  {
    title: 'Name',
    cell: (row) => (
      <>
        {row.name} <Label isCompact>{row.namespace}</Label> <CrdBadge source={row.source} />
      </>
    ),
  },
  { title: 'Events', cell: (row) => row.events.join(', ') },
  { title: 'Recipients', cell: (row) => row.recipients.join(', ') },
  { title: 'Sent', cell: (row) => count(row.sent) },
  { title: 'Failed', cell: (row) => count(row.failed) },
  { title: 'Pending', cell: (row) => count(row.pending) },
  { title: 'Last sent', cell: (row) => <DateTime value={row.last_sent} /> },
  { title: 'Last failed', cell: (row) => <DateTime value={row.last_failed} /> },
  { title: 'Error', cell: (row) => row.error ?? '' },
];

type Data = ReturnType<typeof useRulesData>;

/** The `id` URL parameter of the Add rule form. */
const NEW_RULE = 'new';

/** The form of the rule `id` once its columns are in, or of a new rule. */
function RuleEditor({ id, data, onClose }: { id?: string; data: Data; onClose(): void }) {
  const { create, update, remove } = data;
  const rule = useRule(id);
  const { authorizer } = useSession();
  const toast = useToast();
  const fail = (e: unknown) => toast.error(errorMessage(e));
  useEffect(() => {
    if (rule.error) {
      toast.error(errorMessage(rule.error));
      onClose();
    }
  }, [rule.error, toast, onClose]);
  if (id && !rule.data) return rule.error ? null : <PageSpinner />;
  const row: RuleRow | undefined = rule.data;
  const readOnlyReason = !authorizer.can('notifications', 'write')
    ? 'You may read notification rules but not change them.'
    : row && !isUiSource(row.source)
      ? readOnlyMessage(row.source)
      : undefined;
  const save = (columns: RuleColumns) =>
    row
      ? update.mutate(
          { id: row.id, columns },
          { onSuccess: () => (toast.success('Notification updated successfully'), onClose()), onError: fail },
        )
      : create.mutate(columns, { onSuccess: () => (toast.success('Notification created successfully'), onClose()), onError: fail });
  return (
    <RuleModal
      row={row}
      readOnlyReason={readOnlyReason}
      isBusy={create.isPending || update.isPending}
      onSave={save}
      onDelete={row && (() => remove.mutateAsync(row.id).then(() => (toast.success(`${row.name} deleted successfully`), onClose()), fail))}
      onClose={onClose}
    />
  );
}

function Rules() {
  const data = useRulesData();
  const { authorizer } = useSession();
  // The rule whose form is open: its id, or NEW_RULE.
  const [search, setSearch] = useLiveSearchParams();
  const editing = search.get('id');
  const open = (id: string) => setSearch((params) => (params.set('id', id), params));
  const close = useCallback(() => setSearch((params) => (params.delete('id'), params)), [setSearch]);
  useTopBar('Notification rules', data.rules.refetch, data.rules.isFetching);
  return (
    <PageSection>
      <NotificationsTabs active={RULES_PATH} />
      <DataTable
        aria-label="Notification rules"
        columns={COLUMNS}
        query={data.rules}
        errorTitle="Failed to load notification rules"
        rowKey={(row) => row.id}
        onRowClick={(row) => open(row.id)}
        toolbar={authorizer.can('notifications', 'write') && <Button onClick={() => open(NEW_RULE)}>Add rule</Button>}
      />
      {editing !== null && <RuleEditor key={editing} id={editing === NEW_RULE ? undefined : editing} data={data} onClose={close} />}
    </PageSection>
  );
}

/** The notification rules with their send counts; a row opens its form (read-only when not written from the UI or without write),
 * named by the URL's `id`. */
export default function RulesPage() {
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <Rules />
    </RequireAccess>
  );
}
