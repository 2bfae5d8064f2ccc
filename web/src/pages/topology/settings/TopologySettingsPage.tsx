import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { RequireAccess } from '../../../components/RequireAccess';
import { ResourceEditor } from '../../../components/resource-editor/ResourceEditor';
import { isUiSource, sourceLabel } from '../../../lib/source';
import { IntegrationPageShell } from '../../integrations/IntegrationPageShell';
import { useIntegrationData } from '../../integrations/useIntegrationData';
import { ResourceJobHistory } from '../../jobs/ResourceJobHistory';
import { AFTER_WRITE_PATH, TOPOLOGY_SETTINGS_PATH } from './paths';
import { TOPOLOGY_KIND } from './topologyKind';

function Topology({ id }: { id: string }) {
  const { row: query, update, remove } = useIntegrationData('topology', id);
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const done = (name: string, verb: string) => (toast.success(`${name} ${verb} successfully`), navigate(AFTER_WRITE_PATH));

  return (
    <IntegrationPageShell
      label="Topology"
      query={query}
      source={(row) => (row.source === 'KubernetesCRD' ? `Kubernetes CRD Topology ${row.namespace}/${row.name}` : sourceLabel(row.source))}
      tabs={(row) => [
        {
          key: 'spec',
          title: 'Spec',
          body: (
            <ResourceEditor
              key={`${row.id}-${row.updated_at}`}
              kind={TOPOLOGY_KIND}
              row={row}
              readOnly={!isUiSource(row.source) || Boolean(row.deleted_at) || !authorizer.can('topologies', 'write')}
              isBusy={update.isPending || remove.isPending}
              onSubmit={(body) => update.mutate(body, { onSuccess: () => done(row.name, 'updated'), onError: fail })}
              onCancel={() => navigate(TOPOLOGY_SETTINGS_PATH)}
              onDelete={() => remove.mutateAsync().then(() => done(row.name, 'deleted'), fail)}
            />
          ),
        },
        { key: 'history', title: 'Job History', body: <ResourceJobHistory resourceId={row.id} /> },
      ]}
    />
  );
}

/** A topology in the generic resource editor (editable when written from the
 * UI, by a writer) and its job history. */
export default function TopologySettingsPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="topologies" feature="settings.topology">
      <Topology id={id} />
    </RequireAccess>
  );
}
