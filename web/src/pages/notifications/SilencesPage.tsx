import { Button, Label, PageSection } from '@patternfly/react-core';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DeleteButton } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { isUiSource } from '../../lib/source';
import { NotificationsTabs } from './NotificationsTabs';
import { ADD_SILENCE_PATH, SILENCES_PATH, silenceState } from './notificationModel';
import { useSilencesData, type SilenceRow } from './useNotificationsData';

function target(row: SilenceRow): string {
  const named = row.check ?? row.config ?? row.component ?? row.canary;
  return named?.name ?? '';
}

function columns(now: number): Column<SilenceRow>[] {
  return [
    {
      title: 'Name',
      cell: (row) => (
        <>
          {row.name} <CrdBadge source={row.source} />
        </>
      ),
    },
    { title: 'Resource', cell: (row) => `${target(row)}${row.recursive ? ' (and children)' : ''}` },
    { title: 'Filter', cell: (row) => row.filter ?? '' },
    { title: 'From', cell: (row) => <DateTime value={row.from ?? row.created_at} /> },
    { title: 'Until', cell: (row) => (row.until ? <DateTime value={row.until} /> : 'Indefinitely') },
    {
      title: 'State',
      cell: (row) => {
        const state = silenceState(row, now);
        return (
          <Label isCompact color={state === 'active' ? 'green' : state === 'scheduled' ? 'blue' : 'grey'}>
            {state === 'active' ? 'Active' : state === 'scheduled' ? 'Scheduled' : 'Expired'}
          </Label>
        );
      },
    },
    { title: 'Description', cell: (row) => row.description ?? '' },
  ];
}

function Silences() {
  const { silences, remove } = useSilencesData();
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  useTopBar('Notification silences', silences.refetch, silences.isFetching);
  const canWrite = authorizer.can('notifications', 'write');
  return (
    <PageSection>
      <NotificationsTabs active={SILENCES_PATH} />
      <DataTable
        aria-label="Notification silences"
        columns={columns(silences.dataUpdatedAt)}
        query={silences}
        errorTitle="Failed to load notification silences"
        rowKey={(row) => row.id}
        toolbar={canWrite && <Button onClick={() => navigate(ADD_SILENCE_PATH)}>Add silence</Button>}
        actions={(row) =>
          canWrite &&
          isUiSource(row.source) && (
            <DeleteButton
              title="Delete silence"
              message={`Delete the silence ${row.name}? Notifications it holds back are sent again.`}
              onConfirm={() =>
                remove.mutateAsync(row.id).then(
                  () => toast.success(`${row.name} deleted successfully`),
                  (e) => toast.error(errorMessage(e)),
                )
              }
            />
          )
        }
      />
    </PageSection>
  );
}

/** The silences in force, scheduled or expired; deleting one sets its deleted_at. */
export default function SilencesPage() {
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <Silences />
    </RequireAccess>
  );
}
