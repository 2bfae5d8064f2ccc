import { PageSection } from '@patternfly/react-core';
import { useCallback, useMemo } from 'react';
import type { Schemas } from '../../../api/client';
import { usePreference } from '../../../app/preferences';
import { useTopBar } from '../../../app/topBar';
import { RequireAccess } from '../../../components/RequireAccess';
import './catalog-list.css';
import { catalogFilter } from './catalogFilter';
import { parseCatalogParams, withCatalogParams, type CatalogParams } from './catalogParams';
import { CatalogTable } from './CatalogTable';
import { CatalogToolbar } from './CatalogToolbar';
import { TypeFacet } from './TypeFacet';
import { useAgents, useCatalogData } from './useCatalogData';
import { CatalogNav } from '../shared/CatalogNav';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

const NO_TYPES: Schemas['TypeSummary'][] = [];

function Catalog() {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseCatalogParams(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (patch: Partial<CatalogParams>) => setSearch((current) => withCatalogParams(current, patch), { replace: true }),
    [setSearch],
  );
  const [preferredDeleted] = usePreference('showDeleted');
  const [preferredSize] = usePreference('pageSize');
  const showDeleted = params.showDeleted ?? preferredDeleted;
  const pageSize = params.pageSize ?? preferredSize;
  const agents = useAgents();
  const filter = useMemo(() => catalogFilter(params, showDeleted, agents), [params, showDeleted, agents]);
  const page = useMemo(
    () => ({ sortBy: params.sortBy, sortDesc: params.sortDesc, pageIndex: params.pageIndex, pageSize }),
    [params.sortBy, params.sortDesc, params.pageIndex, pageSize],
  );
  const { list, summary, counts } = useCatalogData(filter, page);
  useTopBar('Catalog', list.refetch, list.isFetching);

  const types = summary.data ?? NO_TYPES;
  const statuses = useMemo(() => [...new Set(types.flatMap((t) => Object.keys(t.status)))].sort(), [types]);

  return (
    <PageSection>
      <CatalogNav />
      <div className="qd-catalog">
        <TypeFacet summary={types} selected={params.types} onSelect={(t) => update({ types: t })} />
        <div className="qd-catalog-main">
          <CatalogToolbar params={params} update={update} statuses={statuses} agents={agents} showDeleted={showDeleted} />
          <CatalogTable
            rows={list.data?.rows ?? []}
            counts={counts}
            total={list.data?.total ?? 0}
            isLoading={list.isLoading}
            error={list.error}
            sortBy={params.sortBy}
            sortDesc={params.sortDesc}
            onSort={(sortBy, sortDesc) => update({ sortBy, sortDesc })}
            pageIndex={params.pageIndex}
            pageSize={pageSize}
            onPage={(pageIndex, size) => update({ pageIndex, pageSize: size })}
          />
        </div>
      </div>
    </PageSection>
  );
}

/** The catalog's items (decisions, catalog list): grouped by type, filtered,
 * searched, sorted and paged on the server as the URL says. */
export default function CatalogPage() {
  return (
    <RequireAccess resource="database" feature="config">
      <Catalog />
    </RequireAccess>
  );
}
