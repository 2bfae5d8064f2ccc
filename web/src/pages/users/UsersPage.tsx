import { Button, Label, PageSection } from '@patternfly/react-core';
import { ActionsColumn } from '@patternfly/react-table';
import { useState } from 'react';
import type { Schemas } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { LabelList } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { useUsersData } from './useUsersData';
import { InviteModal, LinkModal, RolesModal } from './UserModals';

type Person = Schemas['PersonWithRoles'];
type Dialog = { kind: 'invite' } | { kind: 'roles' | 'remove'; person: Person } | { kind: 'link'; person: Person; link: string };

const COLUMNS: Column<Person>[] = [
  { title: 'Name', cell: (person) => person.name },
  { title: 'Email', cell: (person) => person.email },
  { title: 'Roles', cell: (person) => <LabelList items={person.roles} label={`Roles of ${person.name}`} /> },
  {
    title: 'Status',
    cell: (person) => (
      <Label isCompact color={person.active ? 'green' : 'orange'}>
        {person.active ? 'Active' : 'Invited'}
      </Label>
    ),
  },
  { title: 'Last Login', cell: (person) => <DateTime value={person.last_login} /> },
  { title: 'Created', cell: (person) => <DateTime value={person.created_at} /> },
];

function Users() {
  const data = useUsersData();
  const { list } = data;
  const { authorizer, user } = useSession();
  const toast = useToast();
  const [dialog, setDialog] = useState<Dialog>();
  useTopBar('Users', list.refetch, list.isFetching);
  const canWrite = authorizer.can('identities', 'write');
  const close = () => setDialog(undefined);

  const issueReset = (person: Person) =>
    data.resetLink.mutate(person.id, {
      onSuccess: (r) => setDialog({ kind: 'link', person, link: r.payload.link }),
      onError: (e) => toast.error(errorMessage(e)),
    });

  return (
    <PageSection>
      <DataTable
        aria-label="Users"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading users"
        rowKey={(person) => person.id}
        toolbar={canWrite && <Button onClick={() => setDialog({ kind: 'invite' })}>Invite User</Button>}
        actions={
          canWrite
            ? (person) => (
                <ActionsColumn
                  items={[
                    { title: 'Change roles', onClick: () => setDialog({ kind: 'roles', person }) },
                    { title: 'Issue password reset link', onClick: () => issueReset(person) },
                    { title: 'Remove', isDisabled: person.id === user.id, onClick: () => setDialog({ kind: 'remove', person }) },
                  ]}
                />
              )
            : undefined
        }
      />
      {dialog?.kind === 'invite' && <InviteModal data={data} onClose={close} />}
      {dialog?.kind === 'roles' && <RolesModal data={data} person={dialog.person} onClose={close} />}
      {dialog?.kind === 'link' && (
        <LinkModal
          title="Password reset link"
          text={`Send this one-time link to ${dialog.person.email ?? dialog.person.name}: it lets them choose a new password.`}
          link={dialog.link}
          onClose={close}
        />
      )}
      {dialog?.kind === 'remove' && (
        <ConfirmDialog
          isOpen
          title="Remove user"
          message={`Are you sure you want to remove ${dialog.person.name}?`}
          confirmLabel="Remove"
          isBusy={data.remove.isPending}
          onCancel={close}
          onConfirm={() =>
            data.remove.mutate(dialog.person.id, {
              onSuccess: () => (toast.success(`${dialog.person.name} deleted successfully`), close()),
              onError: (e) => (toast.error(errorMessage(e)), close()),
            })
          }
        />
      )}
    </PageSection>
  );
}

export default function UsersPage() {
  return (
    <RequireAccess resource="identities" feature="settings.users">
      <Users />
    </RequireAccess>
  );
}
