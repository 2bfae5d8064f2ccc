import { Label, type LabelProps } from '@patternfly/react-core';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { useSession } from '../../app/session';
import { DateTime } from '../../components/DateTime';
import { ListTable, type Column } from '../../components/ListTable';
import { addSilencePath, resourceKindLabel, resourcePath, resourceSendsPath, statusLabel } from './notificationModel';
import type { SendRow } from './useNotificationsData';

const COLORS: Record<string, LabelProps['color']> = {
  sent: 'green',
  failed: 'red',
  pending: 'blue',
  silenced: 'grey',
  'repeat-suppressed': 'grey',
  inhibited: 'orange',
};

export function SendStatus({ status }: { status: string | null }) {
  return (
    <Label isCompact color={COLORS[status ?? ''] ?? 'grey'}>
      {statusLabel(status)}
    </Label>
  );
}

const resourceName = (send: SendRow) => send.resource_name ?? send.resource_id;

/** A send's columns: status, resource (its type, a link to its page and to its sends), the event, rule, recipient, time and error. */
export const HISTORY_COLUMNS: Column<SendRow>[] = [
  {
    title: 'Status',
    cell: (send) => (
      <>
        <SendStatus status={send.status} />
        {send.count > 1 && <small> ×{send.count}</small>}
        {send.silenced_by_name && <small> by {send.silenced_by_name}</small>}
      </>
    ),
  },
  {
    title: 'Resource',
    cell: (send) => {
      const page = resourcePath(send.source_event, send.resource_id);
      const name = resourceName(send);
      return (
        <>
          <small>{resourceKindLabel(send.resource_kind)}</small> {page && !send.resource_deleted_at ? <Link to={page}>{name}</Link> : name}
          {send.resource_deleted_at && <small> (deleted)</small>}{' '}
          <Link to={resourceSendsPath(send.resource_id)} aria-label={`Notifications of ${name}`}>
            (all)
          </Link>
        </>
      );
    },
  },
  { title: 'Event', cell: (send) => send.source_event },
  { title: 'Rule', cell: (send) => send.notification_name },
  { title: 'Recipient', cell: (send) => send.recipient ?? '' },
  { title: 'Time', cell: (send) => <DateTime value={send.created_at} /> },
  { title: 'Error', cell: (send) => send.error ?? '' },
];

/** The 'Silence' link of a send, for writers, when a silence can name its resource. */
export function useSilenceAction(): ((send: SendRow) => ReactNode) | undefined {
  const canSilence = useSession().authorizer.can('notifications', 'write');
  if (!canSilence) return undefined;
  return (send) => {
    const silence = addSilencePath(send.source_event, send.resource_id);
    return (
      silence && (
        <Link to={silence} aria-label={`Silence notifications of ${resourceName(send)}`}>
          Silence
        </Link>
      )
    );
  };
}

/** Sends, one row each, without paging (the silence preview's). */
export function HistoryTable({
  query,
  label,
}: {
  query: { data?: { rows: SendRow[] }; isLoading: boolean; error: unknown };
  label: string;
}) {
  const silence = useSilenceAction();
  return (
    <ListTable
      aria-label={label}
      columns={HISTORY_COLUMNS}
      rows={query.data?.rows ?? []}
      isLoading={query.isLoading}
      error={query.error}
      errorTitle="Failed to load notifications"
      rowKey={(send) => send.id}
      actions={silence}
    />
  );
}
