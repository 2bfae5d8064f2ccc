import { Button, FormGroup, PageSection, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DeleteButton } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { RequireAccess } from '../../components/RequireAccess';
import { ExecutionPolicy } from './ExecutionPolicy';
import { SignInSettings } from './SignInSettings';
import { useFeatureFlagsData, type FlagRow } from './useFeatureFlagsData';

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
    <FormModal
      id="flag-form"
      title={row ? 'Edit Feature Flag' : 'Add Feature Flag'}
      onClose={onClose}
      onSubmit={() => save()}
      actions={
        <>
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
        </>
      }
    >
      <FormGroup label="Name" fieldId="flag-name" isRequired>
        <TextInput id="flag-name" value={name} isDisabled={Boolean(row)} onChange={(_e, v) => setName(v)} />
        <FieldError text={touched && !name.trim() ? REQUIRED : undefined} />
      </FormGroup>
      <FormGroup label="Value" fieldId="flag-value" isRequired>
        <TextInput id="flag-value" value={value} onChange={(_e, v) => setValue(v)} />
        <FieldError text={touched && !value.trim() ? REQUIRED : undefined} />
      </FormGroup>
    </FormModal>
  );
}

const COLUMNS: Column<FlagRow>[] = [
  { title: 'Name', cell: (row) => row.name },
  { title: 'Value', cell: (row) => row.value },
  { title: 'Created By', cell: (row) => row.created_by?.name ?? '' },
  { title: 'Updated', cell: (row) => <DateTime value={row.updated_at} /> },
];

function FeatureFlags() {
  const { list } = useFeatureFlagsData();
  const { authorizer } = useSession();
  const [editing, setEditing] = useState<FlagRow | 'new'>();
  useTopBar('Feature Flags', list.refetch, list.isFetching);
  const canWrite = authorizer.can('feature_flags', 'write');
  return (
    <PageSection>
      <ExecutionPolicy />
      <SignInSettings />
      <DataTable
        aria-label="Feature flags"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading feature flags"
        rowKey={(row) => row.name}
        onRowClick={canWrite ? (row) => setEditing(row) : undefined}
        toolbar={canWrite && <Button onClick={() => setEditing('new')}>Add Feature Flag</Button>}
      />
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
