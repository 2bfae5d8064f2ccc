import { Label, type LabelProps } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { Link } from 'react-router';
import { useSession } from '../../app/session';
import { DateTime } from '../../components/DateTime';
import { TableStateRow } from '../../components/TableStates';
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

const COLUMNS = ['Status', 'Resource', 'Event', 'Rule', 'Recipient', 'Time', 'Error'];

/** Sends, one row each: status, resource (its type, a link to its page and to its sends), the event, rule, recipient, time and error. */
export function HistoryTable({
  query,
  label,
}: {
  query: { data?: { rows: SendRow[] }; isLoading: boolean; error: unknown };
  label: string;
}) {
  const rows = query.data?.rows ?? [];
  const canSilence = useSession().authorizer.can('notifications', 'write');
  return (
    <Table aria-label={label} variant="compact">
      <Thead>
        <Tr>
          {COLUMNS.map((c) => (
            <Th key={c}>{c}</Th>
          ))}
          <Th screenReaderText="Actions" />
        </Tr>
      </Thead>
      <Tbody>
        <TableStateRow
          colSpan={COLUMNS.length + 1}
          isLoading={query.isLoading}
          error={query.error}
          errorTitle="Failed to load notifications"
          isEmpty={rows.length === 0}
        />
        {rows.map((send) => {
          const page = resourcePath(send.source_event, send.resource_id);
          const name = send.resource_name ?? send.resource_id;
          const silence = canSilence ? addSilencePath(send.source_event, send.resource_id) : undefined;
          return (
            <Tr key={send.id}>
              <Td dataLabel="Status">
                <SendStatus status={send.status} />
                {send.count > 1 && <small> ×{send.count}</small>}
                {send.silenced_by_name && <small> by {send.silenced_by_name}</small>}
              </Td>
              <Td dataLabel="Resource">
                <small>{resourceKindLabel(send.resource_kind)}</small>{' '}
                {page && !send.resource_deleted_at ? <Link to={page}>{name}</Link> : name}
                {send.resource_deleted_at && <small> (deleted)</small>}{' '}
                <Link to={resourceSendsPath(send.resource_id)} aria-label={`Notifications of ${name}`}>
                  (all)
                </Link>
              </Td>
              <Td dataLabel="Event">{send.source_event}</Td>
              <Td dataLabel="Rule">{send.notification_name}</Td>
              <Td dataLabel="Recipient">{send.recipient ?? ''}</Td>
              <Td dataLabel="Time">
                <DateTime value={send.created_at} />
              </Td>
              <Td dataLabel="Error">{send.error ?? ''}</Td>
              <Td isActionCell>
                {silence && (
                  <Link to={silence} aria-label={`Silence notifications of ${name}`}>
                    Silence
                  </Link>
                )}
              </Td>
            </Tr>
          );
        })}
      </Tbody>
    </Table>
  );
}
