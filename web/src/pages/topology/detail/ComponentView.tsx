import {
  EmptyState,
  EmptyStateBody,
  EmptyStateFooter,
  PageSection,
  Sidebar,
  SidebarContent,
  SidebarPanel,
  Title,
} from '@patternfly/react-core';
import { Suspense, lazy, useCallback, useMemo } from 'react';
import { Link } from 'react-router';
import { useTopBar } from '../../../app/topBar';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { PageSpinner } from '../../../components/PageSpinner';
import { parseTopologyParams, withTopologyParams, type TopologyParams } from '../list/topologyParams';
import { TopologyToolbar } from '../list/TopologyToolbar';
import { TopologyCards } from '../shared/TopologyCards';
import { breadcrumbTrail } from './breadcrumbs';
import { ComponentHeader } from './ComponentHeader';
import { ChecksSection, ConfigsSection, InsightsSection, PropertiesSection, TeamsSection } from './ComponentPanel';
import './component.css';
import { useComponentData } from './useComponentData';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

const CheckDetailModal = lazy(() => import('../../health/detail/CheckDetailModal'));

function NotFound({ home }: { home?: string }) {
  return (
    <PageSection>
      <EmptyState titleText="Component not found" headingLevel="h2">
        <EmptyStateBody>There is no such component, it was deleted, or you may not see it.</EmptyStateBody>
        {home && (
          <EmptyStateFooter>
            <Link to={home}>Back to Topology</Link>
          </EmptyStateFooter>
        )}
      </EmptyState>
    </PageSection>
  );
}

/** A component's page: its header, its children as cards, and a side panel
 * with its properties, checks, configs, insights and teams. `base` is where
 * component pages are (`/topology` in the shell, `/view/topology` in the
 * public view, which has no dashboard to go back to). */
export function ComponentView({ id, base }: { id: string; base: '/topology' | '/view/topology' }) {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseTopologyParams(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (patch: Partial<TopologyParams>) => setSearch((current) => withTopologyParams(current, patch), { replace: true }),
    [setSearch],
  );
  const data = useComponentData(id, params);
  const { tree: query, component } = data;
  const checkId = search.get('checkId');
  useTopBar(component ? `Topology: ${component.name}` : 'Topology', query.refetch, query.isFetching);
  const home = base === '/topology' ? base : undefined;
  const href = useCallback((target: string) => `${base}/${target}`, [base]);

  if (query.isLoading) return <PageSpinner />;
  if (query.error)
    return (
      <PageSection>
        <ErrorPanel error={query.error} />
      </PageSection>
    );
  if (!component || !query.data) return <NotFound home={home} />;

  const trail = breadcrumbTrail(data.ancestorIds, data.ancestors.data ?? []);
  const children = component.components;

  return (
    <>
      <PageSection>
        <ComponentHeader component={component} trail={trail} href={href} home={home} />
      </PageSection>
      <PageSection isFilled>
        <Sidebar hasGutter isPanelRight>
          <SidebarPanel width={{ default: 'width_25' }}>
            <aside aria-label="Details" className="qd-component-panel">
              <PropertiesSection properties={component.properties} />
              <ChecksSection query={data.checks} />
              <ConfigsSection query={data.configs} />
              <InsightsSection query={data.insights} />
              <TeamsSection query={data.teams} />
            </aside>
          </SidebarPanel>
          <SidebarContent>
            <Title headingLevel="h2" size="lg">
              Components
            </Title>
            <TopologyToolbar params={params} update={update} facets={query.data} />
            {children.length > 0 ? (
              <TopologyCards components={children} label="Components" href={href} />
            ) : (
              <EmptyState titleText="No data available" headingLevel="h3" variant="sm" />
            )}
          </SidebarContent>
        </Sidebar>
      </PageSection>
      {checkId && (
        <Suspense fallback={null}>
          <CheckDetailModal checkId={checkId} />
        </Suspense>
      )}
    </>
  );
}
