import { Button, FormGroup, PageSection, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { DEFAULT_TEAM_ICON, TeamIconPicker } from './teamIcons';
import { useTeamsData, type TeamListRow } from './useTeamsData';

function AddTeamModal({ onClose }: { onClose(): void }) {
  const { create } = useTeamsData();
  const [name, setName] = useState('');
  const [icon, setIcon] = useState(DEFAULT_TEAM_ICON);
  const [touched, setTouched] = useState(false);
  const toast = useToast();
  const missing = touched && !name.trim();
  const submit = () => {
    setTouched(true);
    if (!name.trim()) return;
    create.mutate(
      { name: name.trim(), icon },
      { onSuccess: () => (toast.success(`${name.trim()} created successfully`), onClose()), onError: (e) => toast.error(errorMessage(e)) },
    );
  };
  return (
    <FormModal
      id="add-team-form"
      title="Add Team"
      onClose={onClose}
      onSubmit={() => submit()}
      actions={
        <Button type="submit" form="add-team-form" isLoading={create.isPending} isDisabled={create.isPending}>
          Save
        </Button>
      }
    >
      <FormGroup label="Name" fieldId="new-team-name" isRequired>
        <TextInput id="new-team-name" value={name} validated={missing ? 'error' : 'default'} onChange={(_e, v) => setName(v)} />
        <FieldError text={missing ? 'This field is required' : undefined} />
      </FormGroup>
      <FormGroup label="Icon" fieldId="new-team-icon">
        <TeamIconPicker id="new-team-icon" value={icon} onChange={setIcon} />
      </FormGroup>
    </FormModal>
  );
}

const COLUMNS: Column<TeamListRow>[] = [
  { title: 'Name', cell: (team) => team.name },
  { title: 'Members', cell: (team) => team.team_members?.length ?? 0 },
  {
    title: 'Created By',
    cell: (team) => (
      <>
        {team.created_by?.name ?? ''} <CrdBadge source={team.source} />
      </>
    ),
  },
  { title: 'Created', cell: (team) => <DateTime value={team.created_at} /> },
  { title: 'Updated', cell: (team) => <DateTime value={team.updated_at} /> },
];

function Teams() {
  const { list } = useTeamsData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  useTopBar('Teams', list.refetch, list.isFetching);
  return (
    <PageSection>
      <DataTable
        aria-label="Teams"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading teams"
        rowKey={(team) => team.id}
        onRowClick={(team) => navigate(`/settings/teams/${team.id}`)}
        toolbar={authorizer.can('database', 'write') && <Button onClick={() => setAdding(true)}>Add Team</Button>}
      />
      {adding && <AddTeamModal onClose={() => setAdding(false)} />}
    </PageSection>
  );
}

export default function TeamsPage() {
  return (
    <RequireAccess resource="database" feature="settings.teams">
      <Teams />
    </RequireAccess>
  );
}
