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
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { errorMessage } from '../../api/errors';
import { useTopBar } from '../../app/topBar';
import { CreatedUpdated } from '../../components/CreatedUpdated';
import { PageSpinner } from '../../components/PageSpinner';
import { isUiSource, readOnlyMessage, sourceLabel } from '../../lib/source';
import { useLiveSearchParams } from '../../app/useLiveSearchParams';

/** What the shell shows of a resource. */
export interface ShellRow {
  name: string;
  source?: string | null;
  deleted_at?: string | null;
  created_at: string | null;
  updated_at: string | null;
  created_by?: { name: string } | null;
}

export interface ShellTab {
  /** In the URL's `tab` (the first tab is the default, left out). */
  key: string;
  title: string;
  body: ReactNode;
}

interface Props<R extends ShellRow> {
  /** The top bar reads '{label}: {name}'; the tabs are named by it. */
  label: string;
  query: UseQueryResult<R | null>;
  notFound?: string;
  /** The source line; the source in words unless given. */
  source?(row: R): string;
  /** Buttons above the details (e.g. Scrape now). */
  actions?(row: R): ReactNode;
  /** Description groups after Source (Created and Updated come last). */
  details?(row: R): ReactNode;
  /** Tabs, the open one in the URL; or one body. */
  tabs?(row: R): ShellTab[];
  children?(row: R): ReactNode;
}

/** The page of one integration (a topology, scraper or log backend): its top
 * bar title, the read-only and deleted banners, its source line and dates, then
 * its tabs or its form; a spinner while loading and 'No resources found' for a
 * missing one. */
export function IntegrationPageShell<R extends ShellRow>({
  label,
  query,
  notFound = 'No resources found',
  source,
  actions,
  details,
  tabs,
  children,
}: Props<R>) {
  const row = query.data;
  useTopBar(row ? `${label}: ${row.name}` : label, query.refetch, query.isFetching);
  if (query.isLoading) return <PageSpinner />;
  if (!row)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={query.error ? errorMessage(query.error) : notFound} />
      </PageSection>
    );
  return (
    <PageSection>
      {!isUiSource(row.source) && <Alert isInline variant="info" title={readOnlyMessage(row.source)} className="pf-v6-u-mb-md" />}
      {row.deleted_at && <Alert isInline variant="warning" title="This resource has been deleted." className="pf-v6-u-mb-md" />}
      {actions && <div className="pf-v6-u-mb-md">{actions(row)}</div>}
      <DescriptionList isHorizontal isCompact className="pf-v6-u-mb-md" aria-label="Details">
        <DescriptionListGroup>
          <DescriptionListTerm>Source</DescriptionListTerm>
          <DescriptionListDescription>{source ? source(row) : sourceLabel(row.source)}</DescriptionListDescription>
        </DescriptionListGroup>
        {details?.(row)}
        <CreatedUpdated row={row} />
      </DescriptionList>
      {tabs ? <ShellTabs label={label} tabs={tabs(row)} /> : children?.(row)}
    </PageSection>
  );
}

function ShellTabs({ label, tabs }: { label: string; tabs: ShellTab[] }) {
  const [search, setSearch] = useLiveSearchParams();
  const first = tabs[0]?.key;
  const open = tabs.find((t) => t.key === search.get('tab'))?.key ?? first;
  const openTab = (key: string) =>
    setSearch(
      (current) => {
        const next = new URLSearchParams(current);
        if (key === first) next.delete('tab');
        else next.set('tab', key);
        return next;
      },
      { replace: true },
    );
  return (
    <Tabs activeKey={open} onSelect={(_e, key) => openTab(String(key))} aria-label={label} mountOnEnter unmountOnExit>
      {tabs.map((t) => (
        <Tab key={t.key} eventKey={t.key} title={<TabTitleText>{t.title}</TabTitleText>}>
          <div className="pf-v6-u-pt-md">{t.body}</div>
        </Tab>
      ))}
    </Tabs>
  );
}
