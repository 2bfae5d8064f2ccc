import { Bullseye, EmptyState, PageSection, Spinner } from '@patternfly/react-core';
import { useCallback, useMemo } from 'react';
import { useTopBar } from '../../../app/topBar';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { RequireAccess } from '../../../components/RequireAccess';
import { TopologyCards } from '../shared/TopologyCards';
import { parseTopologyParams, topologyQuery, withTopologyParams, type TopologyParams } from './topologyParams';
import { TopologyToolbar, type Facets } from './TopologyToolbar';
import { useTopologyData } from './useTopologyData';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

const NO_FACETS: Facets = { types: [], teams: [], tags: {} };

function Topology() {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseTopologyParams(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (patch: Partial<TopologyParams>) => setSearch((current) => withTopologyParams(current, patch), { replace: true }),
    [setSearch],
  );
  const query = useMemo(() => topologyQuery(params), [params]);
  const topology = useTopologyData(query);
  useTopBar('Topology', topology.refetch, topology.isFetching);

  const components = topology.data?.components ?? [];
  return (
    <PageSection>
      <TopologyToolbar params={params} update={update} facets={topology.data ?? NO_FACETS} />
      {topology.isLoading ? (
        <Bullseye>
          <Spinner size="lg" aria-label="Loading" />
        </Bullseye>
      ) : topology.error ? (
        <ErrorPanel error={topology.error} />
      ) : components.length === 0 ? (
        <EmptyState titleText="No data available" headingLevel="h2" />
      ) : (
        <TopologyCards label="Components" components={components} />
      )}
    </PageSection>
  );
}

/** The dashboard (decisions, topology dashboard): the root components as
 * cards, filtered as the URL says. */
export default function TopologyPage() {
  return (
    <RequireAccess resource="topologies" feature="topology">
      <Topology />
    </RequireAccess>
  );
}
