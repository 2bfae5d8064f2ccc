import { Button, Label, PageSection } from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { ConfirmDialog } from '../../components/ConfirmDialog';
import { DataTable, type Column } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Unauthorized } from '../../components/Unauthorized';
import { SsoProviderModal } from './SsoProviderModal';
import { useSsoProvidersData, type SsoProvider } from './useSsoProvidersData';

const COLUMNS: Column<SsoProvider>[] = [
  { title: 'Label', cell: (p) => p.label },
  { title: 'Slug', cell: (p) => p.slug },
  { title: 'Issuer', cell: (p) => p.issuer },
  { title: 'Creates people', cell: (p) => (p.create_people ? 'Yes' : 'No') },
  { title: 'Mappings', cell: (p) => String(p.mappings.length) },
  { title: 'Status', cell: (p) => (p.enabled ? <Label color="green">Enabled</Label> : <Label>Disabled</Label>) },
  { title: 'Updated', cell: (p) => <DateTime value={p.updated_at} /> },
];

function Providers() {
  const data = useSsoProvidersData();
  const { list } = data;
  const toast = useToast();
  const [editing, setEditing] = useState<SsoProvider | 'new'>();
  const [removing, setRemoving] = useState<SsoProvider>();
  useTopBar('Single Sign-On', list.refetch, list.isFetching);
  return (
    <PageSection>
      <DataTable
        aria-label="Single sign-on providers"
        columns={COLUMNS}
        query={list}
        errorTitle="Error loading single sign-on providers"
        rowKey={(p) => p.slug}
        onRowClick={(p) => setEditing(p)}
        toolbar={<Button onClick={() => setEditing('new')}>Add Provider</Button>}
        actions={(p) => (
          <Button
            variant="secondary"
            isDanger
            size="sm"
            aria-label={`Delete ${p.label}`}
            onClick={(e) => {
              // The row's own click opens the editor.
              e.stopPropagation();
              setRemoving(p);
            }}
          >
            Delete
          </Button>
        )}
      />
      {editing && <SsoProviderModal provider={editing === 'new' ? undefined : editing} data={data} onClose={() => setEditing(undefined)} />}
      {removing && (
        <ConfirmDialog
          isOpen
          title="Delete provider"
          message={`Are you sure you want to delete ${removing.label}? Accounts linked through it are unlinked. This action cannot be undone.`}
          confirmLabel="Delete"
          isBusy={data.remove.isPending}
          onCancel={() => setRemoving(undefined)}
          onConfirm={() =>
            data.remove.mutate(removing.slug, {
              onSuccess: () => (toast.success(`${removing.label} deleted successfully`), setRemoving(undefined)),
              onError: (e) => (toast.error(errorMessage(e)), setRemoving(undefined)),
            })
          }
        />
      )}
    </PageSection>
  );
}

/** /settings/single-sign-on: admins only (the API refuses anyone else). */
export default function SsoProvidersPage() {
  const { authorizer } = useSession();
  return authorizer.isAdmin ? <Providers /> : <Unauthorized />;
}
