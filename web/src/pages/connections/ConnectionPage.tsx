import { Alert, Button, PageSection } from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { CONNECTION_TYPES } from '../../api/connections.gen';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DeleteButton } from '../../components/ConfirmDialog';
import { PageSpinner } from '../../components/PageSpinner';
import { RequireAccess } from '../../components/RequireAccess';
import { isUiSource, readOnlyMessage } from '../../lib/source';
import { ConnectionForm, type Stored } from './ConnectionForm';
import { serverFieldErrors } from './connectionForm';
import { CONNECTIONS_PATH } from './ConnectionsPage';
import { TypeChooser } from './TypeChooser';
import { typeTitle } from './TypeIcon';
import { useConnectionData } from './useConnectionsData';
import { useLiveSearchParams } from '../../app/useLiveSearchParams';

const findType = (id: string | null | undefined) => CONNECTION_TYPES.find((t) => t.id === id);

/** Add Connection: the type list, then (`?type=`) the type's form. */
function AddConnection() {
  const [params, setParams] = useLiveSearchParams();
  const data = useConnectionData(undefined);
  const toast = useToast();
  const navigate = useNavigate();
  const type = findType(params.get('type'));
  useTopBar(type ? `Add Connection: ${type.title}` : 'Add Connection');
  if (!type)
    return (
      <PageSection>
        <TypeChooser onChoose={(id) => setParams({ type: id })} />
      </PageSection>
    );
  return (
    <PageSection>
      <ConnectionForm
        key={type.id}
        type={type}
        readOnly={false}
        isBusy={data.create.isPending}
        serverErrors={serverFieldErrors(data.create.error)}
        onCancel={() => setParams({})}
        onSubmit={(body) =>
          data.create.mutate(body, {
            onSuccess: (view) => {
              toast.success(`${body.name} created successfully`);
              navigate(`${CONNECTIONS_PATH}/${view.id}`);
            },
            onError: (e) => toast.error(errorMessage(e)),
          })
        }
      />
    </PageSection>
  );
}

/** A stored connection: its form, Test, Save and Delete (read-only unless written from the UI). */
function EditConnection({ id }: { id: string }) {
  const data = useConnectionData(id);
  const toast = useToast();
  const navigate = useNavigate();
  const view = data.connection.data;
  useTopBar(view ? `Connection: ${view.name}` : 'Connection', data.connection.refetch, data.connection.isFetching);

  if (data.connection.isLoading) return <PageSpinner />;
  if (!view)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={data.connection.error ? errorMessage(data.connection.error) : 'No resources found'} />
      </PageSection>
    );
  const type = findType(view.type);
  if (!type)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={`Unknown connection type ${view.type}`} />
      </PageSection>
    );
  const readOnly = !isUiSource(view.source);
  const result = data.test.data;
  const actions = (
    <>
      <Button variant="secondary" isLoading={data.test.isPending} isDisabled={data.test.isPending} onClick={() => data.test.mutate()}>
        Test
      </Button>
      {!readOnly && (
        <DeleteButton
          title="Delete connection"
          message={`Are you sure you want to delete the connection ${view.name}? Checks and scrapers that name connection://${view.namespace}/${view.name} will fail.`}
          onConfirm={() =>
            data.remove.mutateAsync().then(
              () => (toast.success(`${view.name} deleted successfully`), navigate(CONNECTIONS_PATH)),
              (e: unknown) => toast.error(errorMessage(e)),
            )
          }
        />
      )}
    </>
  );
  return (
    <PageSection>
      {readOnly && <Alert isInline variant="info" title={readOnlyMessage(view.source)} className="pf-v6-u-mb-md" />}
      <p className="pf-v6-u-mb-md">
        {typeTitle(view.type)} · <code>{view.ref}</code>
      </p>
      {result && (
        <Alert
          isInline
          variant={result.ok ? 'success' : 'danger'}
          title={result.ok ? 'Connection test succeeded' : 'Connection test failed'}
          className="pf-v6-u-mb-md"
        >
          {result.message} ({result.elapsedMs} ms)
        </Alert>
      )}
      {data.test.error && <Alert isInline variant="danger" title={errorMessage(data.test.error)} className="pf-v6-u-mb-md" />}
      <ConnectionForm
        key={view.updatedAt}
        type={type}
        stored={view as Stored}
        readOnly={readOnly}
        isBusy={data.update.isPending}
        serverErrors={serverFieldErrors(data.update.error)}
        onCancel={() => navigate(CONNECTIONS_PATH)}
        actions={actions}
        onSubmit={(body) =>
          data.update.mutate(body, {
            onSuccess: () => {
              data.test.reset();
              toast.success(`${view.name} updated successfully`);
            },
            onError: (e) => toast.error(errorMessage(e)),
          })
        }
      />
    </PageSection>
  );
}

/** /settings/connections/new adds one; /settings/connections/:id shows one. Admins only. */
export default function ConnectionPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="connections" access={id === 'new' ? 'write' : 'read'} feature="settings.connections">
      {id === 'new' ? <AddConnection /> : <EditConnection id={id} />}
    </RequireAccess>
  );
}
