import {
  Button,
  Form,
  FormGroup,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  PageSection,
  TextInput,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DateTime } from '../../components/DateTime';
import { FieldError } from '../../components/FieldError';
import { CrdBadge } from '../../components/Labels';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { useTeamsData } from './useTeamsData';

const COLUMNS = ['Name', 'Members', 'Created By', 'Created', 'Updated'];

function AddTeamModal({ onClose }: { onClose(): void }) {
  const { create } = useTeamsData();
  const [name, setName] = useState('');
  const [icon, setIcon] = useState('group');
  const [touched, setTouched] = useState(false);
  const toast = useToast();
  const navigate = useNavigate();
  const missing = touched && !name.trim();
  const submit = () => {
    setTouched(true);
    if (!name.trim()) return;
    create.mutate(
      { name: name.trim(), icon },
      {
        onSuccess: ([team]) => (onClose(), team && navigate(`/settings/teams/${team.id}`)),
        onError: (e) => toast.error(errorMessage(e)),
      },
    );
  };
  return (
    <Modal variant="small" isOpen onClose={onClose} aria-labelledby="add-team-title">
      <ModalHeader title="Add Team" labelId="add-team-title" />
      <ModalBody>
        <Form
          id="add-team-form"
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <FormGroup label="Name" fieldId="new-team-name" isRequired>
            <TextInput id="new-team-name" value={name} validated={missing ? 'error' : 'default'} onChange={(_e, v) => setName(v)} />
            <FieldError text={missing ? 'This field is required' : undefined} />
          </FormGroup>
          <FormGroup label="Icon" fieldId="new-team-icon">
            <TextInput id="new-team-icon" value={icon} onChange={(_e, v) => setIcon(v)} />
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button type="submit" form="add-team-form" isLoading={create.isPending} isDisabled={create.isPending}>
          Save
        </Button>
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}

function Teams() {
  const { list } = useTeamsData();
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  useTopBar('Teams', list.refetch, list.isFetching);
  const rows = list.data ?? [];
  return (
    <PageSection>
      {authorizer.can('database', 'write') && (
        <Toolbar>
          <ToolbarContent>
            <ToolbarItem>
              <Button onClick={() => setAdding(true)}>Add Team</Button>
            </ToolbarItem>
          </ToolbarContent>
        </Toolbar>
      )}
      <Table aria-label="Teams" variant="compact">
        <Thead>
          <Tr>
            {COLUMNS.map((c) => (
              <Th key={c}>{c}</Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={COLUMNS.length}
            isLoading={list.isLoading}
            error={list.error}
            errorTitle="Error loading teams"
            isEmpty={rows.length === 0}
          />
          {rows.map((team) => (
            <Tr key={team.id} isClickable onRowClick={() => navigate(`/settings/teams/${team.id}`)}>
              <Td dataLabel="Name">{team.name}</Td>
              <Td dataLabel="Members">{team.team_members?.length ?? 0}</Td>
              <Td dataLabel="Created By">
                {team.created_by?.name ?? ''} <CrdBadge source={team.source} />
              </Td>
              <Td dataLabel="Created">
                <DateTime value={team.created_at} />
              </Td>
              <Td dataLabel="Updated">
                <DateTime value={team.updated_at} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
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
