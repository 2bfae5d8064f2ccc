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
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DeleteButton } from '../../components/ConfirmDialog';
import { DateTime } from '../../components/DateTime';
import { FieldError } from '../../components/FieldError';
import { RequireAccess } from '../../components/RequireAccess';
import { TableStateRow } from '../../components/TableStates';
import { useFeatureFlagsData, type FlagRow } from './useFeatureFlagsData';

const COLUMNS = ['Name', 'Value', 'Created By', 'Updated'];
const REQUIRED = 'This field is required';

function FlagModal({ row, onClose }: { row?: FlagRow; onClose(): void }) {
  const { create, update, remove } = useFeatureFlagsData();
  const [name, setName] = useState(row?.name ?? '');
  const [value, setValue] = useState(row?.value ?? '');
  const [touched, setTouched] = useState(false);
  const toast = useToast();
  const busy = create.isPending || update.isPending || remove.isPending;
  const fail = (e: unknown) => toast.error(errorMessage(e));

  const save = () => {
    setTouched(true);
    if (!name.trim() || !value.trim()) return;
    const done = () => (toast.success(`${name.trim()} ${row ? 'updated' : 'created'} successfully`), onClose());
    if (row) update.mutate({ name: row.name, value }, { onSuccess: done, onError: fail });
    else create.mutate({ name: name.trim(), value }, { onSuccess: done, onError: fail });
  };

  return (
    <Modal variant="small" isOpen onClose={onClose} aria-labelledby="flag-title">
      <ModalHeader title={row ? 'Edit Feature Flag' : 'Add Feature Flag'} labelId="flag-title" />
      <ModalBody>
        <Form
          id="flag-form"
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
        >
          <FormGroup label="Name" fieldId="flag-name" isRequired>
            <TextInput id="flag-name" value={name} isDisabled={Boolean(row)} onChange={(_e, v) => setName(v)} />
            <FieldError text={touched && !name.trim() ? REQUIRED : undefined} />
          </FormGroup>
          <FormGroup label="Value" fieldId="flag-value" isRequired>
            <TextInput id="flag-value" value={value} onChange={(_e, v) => setValue(v)} />
            <FieldError text={touched && !value.trim() ? REQUIRED : undefined} />
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button type="submit" form="flag-form" isLoading={create.isPending || update.isPending} isDisabled={busy}>
          {row ? 'Update' : 'Save'}
        </Button>
        {row && (
          <DeleteButton
            title="Delete resource"
            message="Are you sure you want to delete this resource?"
            isDisabled={busy}
            onConfirm={() =>
              remove.mutateAsync(row.name).then(
                () => (toast.success(`${row.name} deleted successfully`), onClose()),
                (e: unknown) => fail(e),
              )
            }
          />
        )}
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}

function FeatureFlags() {
  const { list } = useFeatureFlagsData();
  const { authorizer } = useSession();
  const [editing, setEditing] = useState<FlagRow | 'new'>();
  useTopBar('Feature Flags', list.refetch, list.isFetching);
  const canWrite = authorizer.can('feature_flags', 'write');
  const rows = list.data ?? [];
  return (
    <PageSection>
      {canWrite && (
        <Toolbar>
          <ToolbarContent>
            <ToolbarItem>
              <Button onClick={() => setEditing('new')}>Add Feature Flag</Button>
            </ToolbarItem>
          </ToolbarContent>
        </Toolbar>
      )}
      <Table aria-label="Feature flags" variant="compact">
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
            errorTitle="Error loading feature flags"
            isEmpty={rows.length === 0}
          />
          {rows.map((row) => (
            <Tr key={row.name} isClickable={canWrite} onRowClick={() => canWrite && setEditing(row)}>
              <Td dataLabel="Name">{row.name}</Td>
              <Td dataLabel="Value">{row.value}</Td>
              <Td dataLabel="Created By">{row.created_by?.name ?? ''}</Td>
              <Td dataLabel="Updated">
                <DateTime value={row.updated_at} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
      {editing && <FlagModal row={editing === 'new' ? undefined : editing} onClose={() => setEditing(undefined)} />}
    </PageSection>
  );
}

export default function FeatureFlagsPage() {
  return (
    <RequireAccess resource="feature_flags" feature="settings.feature_flags">
      <FeatureFlags />
    </RequireAccess>
  );
}
