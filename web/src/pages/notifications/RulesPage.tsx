import { Button, Label, PageSection } from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { isUiSource, readOnlyMessage } from '../../lib/source';
import { NotificationsTabs } from './NotificationsTabs';
import { RULES_PATH, recipientOf, RECIPIENT_KINDS, type RuleColumns } from './notificationModel';
import { RuleModal } from './RuleModal';
import { useRulesData, type RuleRow } from './useNotificationsData';

function recipient(row: RuleRow): string {
  if (row.person) return row.person.name || (row.person.email ?? '');
  if (row.team) return row.team.name;
  if (row.playbook) return row.playbook.name;
  const to = recipientOf(row);
  if (!to) return '';
  return to.kind === 'connection' || to.kind === 'url' ? to.value : (RECIPIENT_KINDS.find((k) => k.value === to.kind)?.label ?? '');
}

const COLUMNS: Column<RuleRow>[] = [
  {
    title: 'Name',
    cell: (row) => (
      <>
        {row.name} <Label isCompact>{row.namespace}</Label> <CrdBadge source={row.source} />
      </>
    ),
  },
  { title: 'Events', cell: (row) => row.events.join(', ') },
  { title: 'Recipient', cell: recipient },
  { title: 'Error', cell: (row) => row.error ?? '' },
];

type Editing = { row?: RuleRow } | null;

function Rules() {
  const { rules, create, update, remove } = useRulesData();
  const { authorizer } = useSession();
  const toast = useToast();
  const [editing, setEditing] = useState<Editing>(null);
  useTopBar('Notification rules', rules.refetch, rules.isFetching);
  const canWrite = authorizer.can('notifications', 'write');
  const close = () => setEditing(null);
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const readOnlyReason = (row?: RuleRow) =>
    !canWrite
      ? 'You may read notification rules but not change them.'
      : row && !isUiSource(row.source)
        ? readOnlyMessage(row.source)
        : undefined;
  const save = (row: RuleRow | undefined, columns: RuleColumns) =>
    row
      ? update.mutate(
          { id: row.id, columns },
          { onSuccess: () => (toast.success('Notification updated successfully'), close()), onError: fail },
        )
      : create.mutate(columns, { onSuccess: () => (toast.success('Notification created successfully'), close()), onError: fail });
  return (
    <PageSection>
      <NotificationsTabs active={RULES_PATH} />
      <DataTable
        aria-label="Notification rules"
        columns={COLUMNS}
        query={rules}
        errorTitle="Failed to load notification rules"
        rowKey={(row) => row.id}
        onRowClick={(row) => setEditing({ row })}
        toolbar={canWrite && <Button onClick={() => setEditing({})}>Add rule</Button>}
      />
      {editing && (
        <RuleModal
          row={editing.row}
          readOnlyReason={readOnlyReason(editing.row)}
          isBusy={create.isPending || update.isPending}
          onSave={(columns) => save(editing.row, columns)}
          onDelete={
            editing.row &&
            (() => {
              const row = editing.row;
              return row
                ? remove.mutateAsync(row.id).then(() => (toast.success(`${row.name} deleted successfully`), close()), fail)
                : Promise.resolve();
            })
          }
          onClose={close}
        />
      )}
    </PageSection>
  );
}

/** The notification rules; a row opens its form (read-only when not written from the UI or without write). */
export default function RulesPage() {
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <Rules />
    </RequireAccess>
  );
}
