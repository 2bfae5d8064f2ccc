import { Button, Label, PageSection, ToolbarItem } from '@patternfly/react-core';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useSession } from '../../../app/session';
import { useTopBar } from '../../../app/topBar';
import type { Column } from '../../../components/ListTable';
import { PagedList } from '../../../components/PagedList';
import { RequireAccess } from '../../../components/RequireAccess';
import { LastRunCell, namedColumns, useNamedList } from '../../integrations/lastRun';
import { ScrapeNowButton } from '../../integrations/ScrapeNowButton';
import { AddScraperModal } from './AddScraperModal';
import { scraperPath, specSchedule, specTypes, summaryCounts } from './scraperList';
import { useScrapersData, type ScraperRow } from './useScrapersData';
import { CatalogNav } from '../shared/CatalogNav';

/** Each type a label; one this version does not run says so. */
function TypesCell({ row }: { row: ScraperRow }) {
  return (
    <span className="qd-label-list" role="list" aria-label="Types">
      {specTypes(row.spec).map((t) => (
        <span role="listitem" key={t.key}>
          <Label isCompact color={t.isRun ? 'blue' : 'grey'}>
            {t.isRun ? t.label : `${t.label} (not run)`}
          </Label>
        </span>
      ))}
    </span>
  );
}

function Scrapers() {
  const { params, search, pager } = useNamedList('Search scrapers by name');
  const { list } = useScrapersData(params);
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  useTopBar('Scrapers', list.refetch, list.isFetching);
  const named = namedColumns<ScraperRow>(scraperPath);
  const columns: Column<ScraperRow>[] = [
    named.name,
    { title: 'Types', cell: (row) => <TypesCell row={row} /> },
    { title: 'Schedule', cell: (row) => specSchedule(row.spec) || 'Default' },
    {
      title: 'Last Run',
      cell: (row) => <LastRunCell run={list.data?.runs.get(row.id)} counts={summaryCounts(list.data?.runs.get(row.id)?.job_details)} />,
    },
    named.source,
  ];

  return (
    <PageSection>
      <CatalogNav />
      <PagedList
        aria-label="Scrapers"
        columns={columns}
        query={list}
        errorTitle="Error loading scrapers"
        rowKey={(row) => row.id}
        onRowClick={(row) => navigate(scraperPath(row.id))}
        actions={(row) => <ScrapeNowButton id={row.id} />}
        tools={
          <>
            {search}
            {authorizer.can('config_scrapers', 'write') && (
              <ToolbarItem>
                <Button icon={<PlusIcon />} onClick={() => setAdding(true)}>
                  Add Scraper
                </Button>
              </ToolbarItem>
            )}
          </>
        }
        pager={pager}
      />
      {adding && <AddScraperModal onClose={() => setAdding(false)} />}
    </PageSection>
  );
}

/** The catalog's scrapers: one page of them with each one's last run. */
export default function ScrapersPage() {
  return (
    <RequireAccess resource="config_scrapers" feature="settings.config_scraper">
      <Scrapers />
    </RequireAccess>
  );
}
