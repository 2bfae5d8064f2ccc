import {
  Button,
  DataList,
  DataListAction,
  DataListCell,
  DataListItem,
  DataListItemCells,
  DataListItemRow,
  DropdownItem,
  DropdownList,
  EmptyState,
  EmptyStateActions,
  EmptyStateFooter,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import EllipsisVIcon from '@patternfly/react-icons/dist/esm/icons/ellipsis-v-icon';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { IconMenu } from '../../components/IconMenu';
import { MultiSelect } from '../../components/Selects';
import { toggled } from '../../lib/selection';
import type { useTeamData } from './useTeamData';

type Data = ReturnType<typeof useTeamData>;
type Member = NonNullable<NonNullable<Data['members']['data']>[number]['person']>;

function MemberMenu({ person, onRemove }: { person: Member; onRemove(): void }) {
  return (
    <IconMenu label={`Actions for ${person.name}`} icon={<EllipsisVIcon />}>
      {() => (
        <DropdownList>
          <DropdownItem onClick={onRemove}>Remove user</DropdownItem>
        </DropdownList>
      )}
    </IconMenu>
  );
}

function AddMembersModal({ data, memberIds, onClose }: { data: Data; memberIds: string[]; onClose(): void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const toast = useToast();
  const candidates = (data.people.data ?? []).filter((p) => !memberIds.includes(p.id));
  const add = () => {
    const names = candidates.filter((p) => chosen.includes(p.id)).map((p) => p.name);
    data.addMembers.mutate(chosen, {
      onSuccess: () => (toast.success(`${names.join(', ')} added to the team successfully`), onClose()),
      onError: (e) => toast.error(errorMessage(e)),
    });
  };
  return (
    <Modal variant="small" isOpen onClose={onClose} aria-labelledby="add-members-title">
      <ModalHeader title="Add users to the team" labelId="add-members-title" />
      <ModalBody>
        <MultiSelect
          label="Users"
          placeholder="Select users"
          options={candidates.map((p) => ({ value: p.id, label: p.name, description: p.email ?? undefined }))}
          values={chosen}
          onToggle={(id) => setChosen((c) => toggled(c, id))}
        />
      </ModalBody>
      <ModalFooter>
        <Button onClick={add} isDisabled={chosen.length === 0 || data.addMembers.isPending} isLoading={data.addMembers.isPending}>
          Add
        </Button>
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}

/** The Members tab of a team. */
export function TeamMembers({ data, canWrite }: { data: Data; canWrite: boolean }) {
  const [adding, setAdding] = useState(false);
  const toast = useToast();
  const members = (data.members.data ?? []).flatMap((m) => (m.person ? [m.person] : []));
  const remove = (person: Member) =>
    data.removeMember.mutate(person.id, {
      onSuccess: () => toast.success(`${person.name} removed from team successfully`),
      onError: (e) => toast.error(errorMessage(e)),
    });
  const addButton = canWrite && <Button onClick={() => setAdding(true)}>Add Members</Button>;
  return (
    <>
      {members.length === 0 && !data.members.isLoading ? (
        <EmptyState titleText="No members" headingLevel="h3" variant="sm">
          You haven&apos;t added any team members to the team yet.
          <EmptyStateFooter>
            <EmptyStateActions>{addButton}</EmptyStateActions>
          </EmptyStateFooter>
        </EmptyState>
      ) : (
        <>
          <Toolbar>
            <ToolbarContent>
              <ToolbarItem>{addButton}</ToolbarItem>
            </ToolbarContent>
          </Toolbar>
          <DataList aria-label="Team members" isCompact>
            {members.map((person) => (
              <DataListItem key={person.id} aria-labelledby={`member-${person.id}`}>
                <DataListItemRow>
                  <DataListItemCells
                    dataListCells={[
                      <DataListCell key="name">
                        <span id={`member-${person.id}`}>{person.name}</span>{' '}
                        {person.email && <small className="pf-v6-u-color-200">{person.email}</small>}
                      </DataListCell>,
                    ]}
                  />
                  {canWrite && (
                    <DataListAction
                      id={`member-actions-${person.id}`}
                      aria-labelledby={`member-${person.id}`}
                      aria-label={`Actions for ${person.name}`}
                    >
                      <MemberMenu person={person} onRemove={() => remove(person)} />
                    </DataListAction>
                  )}
                </DataListItemRow>
              </DataListItem>
            ))}
          </DataList>
        </>
      )}
      {adding && <AddMembersModal data={data} memberIds={members.map((m) => m.id)} onClose={() => setAdding(false)} />}
    </>
  );
}
