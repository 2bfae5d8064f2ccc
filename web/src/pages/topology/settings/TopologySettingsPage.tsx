import {
  Alert,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  PageSection,
  Tab,
  TabTitleText,
  Tabs,
} from '@patternfly/react-core';
import { useNavigate, useParams, useSearchParams } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { useTopBar } from '../../../app/topBar';
import { CreatedUpdated } from '../../../components/CreatedUpdated';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { isUiSource, readOnlyMessage, sourceLabel } from '../../../lib/source';
import { TopologyForm } from '../../integrations/TopologyForm';
import { useIntegrationData } from '../../integrations/useIntegrationData';
import { ResourceJobHistory } from '../../jobs/ResourceJobHistory';
import { AFTER_WRITE_PATH, TOPOLOGY_SETTINGS_PATH } from './paths';

const TABS = { spec: 'Spec', history: 'Job History' } as const;
type TabKey = keyof typeof TABS;

function isTab(value: string | null): value is TabKey {
  return value !== null && Object.hasOwn(TABS, value);
}

function Topology({ id }: { id: string }) {
  const { row: query, update, remove } = useIntegrationData('topology', id);
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const tab = isTab(search.get('tab')) ? (search.get('tab') as TabKey) : 'spec';
  const row = query.data;
  useTopBar(row ? `Topology: ${row.name}` : 'Topology', query.refetch, query.isFetching);
  if (query.isLoading) return <PageSpinner />;
  if (!row)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={query.error ? errorMessage(query.error) : 'No resources found'} />
      </PageSection>
    );
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const done = (verb: string) => {
    toast.success(`${row.name} ${verb} successfully`);
    navigate(AFTER_WRITE_PATH);
  };
  const readOnly = !isUiSource(row.source) || Boolean(row.deleted_at) || !authorizer.can('topologies', 'write');
  const openTab = (key: TabKey) =>
    setSearch(
      (current) => {
        const next = new URLSearchParams(current);
        if (key === 'spec') next.delete('tab');
        else next.set('tab', key);
        return next;
      },
      { replace: true },
    );

  return (
    <PageSection>
      {!isUiSource(row.source) && <Alert isInline variant="info" title={readOnlyMessage(row.source)} className="pf-v6-u-mb-md" />}
      {row.deleted_at && <Alert isInline variant="warning" title="This resource has been deleted." className="pf-v6-u-mb-md" />}
      <DescriptionList isHorizontal isCompact className="pf-v6-u-mb-md" aria-label="Details">
        <DescriptionListGroup>
          <DescriptionListTerm>Source</DescriptionListTerm>
          <DescriptionListDescription>
            {row.source === 'KubernetesCRD' ? `Kubernetes CRD Topology ${row.namespace}/${row.name}` : sourceLabel(row.source)}
          </DescriptionListDescription>
        </DescriptionListGroup>
        <CreatedUpdated row={row} />
      </DescriptionList>
      <Tabs activeKey={tab} onSelect={(_e, key) => openTab(key as TabKey)} aria-label="Topology" mountOnEnter unmountOnExit>
        <Tab eventKey="spec" title={<TabTitleText>{TABS.spec}</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <TopologyForm
              key={`${row.id}-${row.updated_at}`}
              row={row}
              readOnly={readOnly}
              isBusy={update.isPending || remove.isPending}
              onSubmit={(body) => update.mutate(body, { onSuccess: () => done('updated'), onError: fail })}
              onCancel={() => navigate(TOPOLOGY_SETTINGS_PATH)}
              onDelete={() => remove.mutateAsync().then(() => done('deleted'), fail)}
            />
          </div>
        </Tab>
        <Tab eventKey="history" title={<TabTitleText>{TABS.history}</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <ResourceJobHistory resourceId={row.id} />
          </div>
        </Tab>
      </Tabs>
    </PageSection>
  );
}

/** A topology: its Custom Topology form (editable when written from the UI,
 * by a writer) and its job history. */
export default function TopologySettingsPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="topologies" feature="settings.topology">
      <Topology id={id} />
    </RequireAccess>
  );
}
