import {
  Drawer,
  DrawerActions,
  DrawerCloseButton,
  DrawerContent,
  DrawerContentBody,
  DrawerHead,
  DrawerPanelBody,
  DrawerPanelContent,
  PageSection,
  Tab,
  TabTitleText,
  Tabs,
  Title,
} from '@patternfly/react-core';
import { Suspense, lazy, useCallback, useMemo, useState, useSyncExternalStore } from 'react';
import { useTopBar } from '../../app/topBar';
import { RequireAccess } from '../../components/RequireAccess';
import { activeFilterCount, filterChecks, labelChoices, tabsFor } from './healthFilter';
import { groupChecks, sortChecks, tableRows } from './healthGroups';
import type { SortColumn } from './healthParams';
import { ChecksCards } from './ChecksCards';
import { ChecksTable } from './ChecksTable';
import './health.css';
import { HealthFilters } from './HealthFilters';
import { HealthToolbar } from './HealthToolbar';
import { PivotTable } from './PivotTable';
import { useHealthData } from './useHealthData';
import { useHealthParams } from './useHealthParams';

const CheckDetailModal = lazy(() => import('./detail/CheckDetailModal'));

/** Below this width the filter sidebar opens from a toggle button. */
const NARROW = '(max-width: 1023px)';

function subscribeNarrow(onChange: () => void): () => void {
  const query = window.matchMedia(NARROW);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

/** `publicView`: a visitor's, without the check detail (decision 104.15). */
function Health({ publicView = false }: { publicView?: boolean }) {
  const [params, update] = useHealthParams();
  const { summary, checks, agentNames } = useHealthData(params.timeRange, params.tabBy === 'agent');
  useTopBar('Health', summary.refetch, summary.isFetching);
  const isNarrow = useSyncExternalStore(subscribeNarrow, () => window.matchMedia(NARROW).matches);
  const [filtersOpen, setFiltersOpen] = useState(false);
  const [expanded, setExpanded] = useState<ReadonlySet<string>>(new Set());

  const { query, hidePassing, labels, tabBy, groupBy, sortBy, sortDesc } = params;
  const choices = useMemo(() => labelChoices(checks), [checks]);
  const tabs = useMemo(() => tabsFor(checks, tabBy, agentNames), [checks, tabBy, agentNames]);
  // A tab from the URL that no check has (any more) shows as 'All'.
  const tabIndex = Math.max(
    0,
    tabs.findIndex((t) => t.value !== undefined && t.value === params.tab),
  );
  const tab = tabs[tabIndex]?.value;
  const visible = useMemo(
    () => sortChecks(filterChecks(checks, { query, hidePassing, labels, tabBy, tab }), sortBy, sortDesc),
    [checks, query, hidePassing, labels, tabBy, tab, sortBy, sortDesc],
  );
  const groups = useMemo(() => groupChecks(visible, groupBy, sortBy, sortDesc), [visible, groupBy, sortBy, sortDesc]);
  const rows = useMemo(() => tableRows(visible, groups, expanded), [visible, groups, expanded]);

  const openDetail = useCallback((checkId: string) => update({ checkId }), [update]);
  const open = publicView ? undefined : openDetail;
  const sort = useCallback((column: SortColumn, desc: boolean) => update({ sortBy: column, sortDesc: desc }), [update]);
  const toggleGroup = useCallback(
    (name: string) =>
      setExpanded((current) => {
        const next = new Set(current);
        if (!next.delete(name)) next.add(name);
        return next;
      }),
    [],
  );

  const filterPanel = (
    <DrawerPanelContent widths={{ default: 'width_25' }} minSize="16rem" aria-label="Filters">
      <DrawerHead>
        <Title headingLevel="h2" size="md">
          Filters
        </Title>
        {isNarrow && (
          <DrawerActions>
            <DrawerCloseButton onClick={() => setFiltersOpen(false)} />
          </DrawerActions>
        )}
      </DrawerHead>
      <DrawerPanelBody>
        <HealthFilters
          hidePassing={hidePassing}
          labels={labels}
          choices={choices}
          onHidePassing={(value) => update({ hidePassing: value })}
          onLabels={(next) => update({ labels: next })}
        />
      </DrawerPanelBody>
    </DrawerPanelContent>
  );

  const pivot = params.pivotBy && params.pivotLabel ? { by: params.pivotBy, label: params.pivotLabel } : undefined;
  let content;
  if (params.layout === 'card') content = <ChecksCards checks={visible} onOpen={open} />;
  else if (pivot)
    content = (
      <PivotTable
        checks={visible}
        pivotBy={pivot.by}
        pivotLabel={pivot.label}
        cellType={params.pivotCellType}
        onClose={() => update({ pivotBy: undefined, pivotLabel: undefined, pivotCellType: 'health' })}
      />
    );
  else
    content = (
      <ChecksTable
        rows={rows}
        isLoading={summary.isLoading}
        error={summary.error}
        sortBy={sortBy}
        sortDesc={sortDesc}
        showNamespace={!(tabBy === 'namespace' && tab !== undefined)}
        onSort={sort}
        onOpen={open}
        onToggleGroup={toggleGroup}
      />
    );

  return (
    <PageSection isFilled hasBodyWrapper={false} className="qd-health">
      <Drawer isExpanded={!isNarrow || filtersOpen} isInline={!isNarrow} position="start">
        <DrawerContent panelContent={filterPanel}>
          <DrawerContentBody className="qd-health-main">
            <HealthToolbar
              params={params}
              update={update}
              choices={choices}
              filters={
                isNarrow ? { count: activeFilterCount(hidePassing, labels), onToggle: () => setFiltersOpen(!filtersOpen) } : undefined
              }
            />
            <Tabs
              activeKey={tabIndex}
              onSelect={(_e, key) => update({ tab: tabs[Number(key)]?.value })}
              aria-label={`Tabs by ${tabBy.replace(/^label:/, '')}`}
            >
              {tabs.map((t, i) => (
                <Tab key={t.value ?? ''} eventKey={i} title={<TabTitleText>{t.title}</TabTitleText>} />
              ))}
            </Tabs>
            {content}
          </DrawerContentBody>
        </DrawerContent>
      </Drawer>
      {params.checkId && !publicView && (
        <Suspense fallback={null}>
          <CheckDetailModal checkId={params.checkId} />
        </Suspense>
      )}
    </PageSection>
  );
}

/** The Health page (decisions, section 14): every check with its health,
 * uptime and latency, filtered, grouped and tabbed as the URL says. */
export default function HealthPage() {
  return (
    <RequireAccess resource="canaries" feature="health">
      <Health />
    </RequireAccess>
  );
}

/** The Health page for visitors who are not signed in, when health is
 * published: every live check, without the detail dialog. */
export function PublicHealthPage() {
  return <Health publicView />;
}
