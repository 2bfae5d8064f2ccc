import { Button, Label, PageSection, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import PlusIcon from '@patternfly/react-icons/dist/esm/icons/plus-icon';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { PAGE_SIZES, usePreference } from '../../../app/preferences';
import { useSession } from '../../../app/session';
import { useTopBar } from '../../../app/topBar';
import { CrdBadge } from '../../../components/Labels';
import { PagedFooter } from '../../../components/PagedFooter';
import { RequireAccess } from '../../../components/RequireAccess';
import { SearchBox } from '../../../components/SearchBox';
import { TableStateRow } from '../../../components/TableStates';
import { LastRunCell, useNamedListParams } from '../../integrations/lastRun';
import { ScrapeNowButton } from '../../integrations/ScrapeNowButton';
import { AddScraperModal } from './AddScraperModal';
import { scraperPath, specSchedule, specTypes, summaryCounts } from './scraperList';
import { useScrapersData, type ScraperRow } from './useScrapersData';
import { CatalogNav } from '../shared/CatalogNav';

const COLUMNS = ['Name', 'Types', 'Schedule', 'Last Run', 'Source'];

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
  const [params, update] = useNamedListParams();
  const { list, pageSize } = useScrapersData(params);
  const [, setPageSize] = usePreference('pageSize');
  const { authorizer } = useSession();
  const navigate = useNavigate();
  const [adding, setAdding] = useState(false);
  useTopBar('Scrapers', list.refetch, list.isFetching);
  const rows = list.data?.rows ?? [];
  const total = list.data?.total ?? 0;

  return (
    <PageSection>
      <CatalogNav />
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem>
            <SearchBox
              label="Search scrapers by name"
              placeholder="Search by name"
              value={params.search}
              onChange={(search) => update({ search })}
            />
          </ToolbarItem>
          {authorizer.can('config_scrapers', 'write') && (
            <ToolbarItem>
              <Button icon={<PlusIcon />} onClick={() => setAdding(true)}>
                Add Scraper
              </Button>
            </ToolbarItem>
          )}
          <PagedFooter
            placement="toolbar"
            label="Scrapers pagination"
            total={total}
            page={params.page}
            pageSize={pageSize}
            pageSizes={PAGE_SIZES}
            onPage={(page) => update({ page })}
            onPageSize={(size) => (setPageSize(size), update({ page: 1 }))}
          />
        </ToolbarContent>
      </Toolbar>
      <Table aria-label="Scrapers" variant="compact">
        <Thead>
          <Tr>
            {COLUMNS.map((c) => (
              <Th key={c}>{c}</Th>
            ))}
            <Th screenReaderText="Actions" />
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={COLUMNS.length + 1}
            isLoading={list.isLoading}
            error={list.error}
            errorTitle="Error loading scrapers"
            isEmpty={rows.length === 0}
          />
          {rows.map((row) => (
            <Tr key={row.id} isClickable onRowClick={() => navigate(scraperPath(row.id))}>
              <Td dataLabel="Name">
                <Link to={scraperPath(row.id)} onClick={(e) => e.stopPropagation()}>
                  {row.name}
                </Link>{' '}
                <Label isCompact>{row.namespace}</Label>
              </Td>
              <Td dataLabel="Types">
                <TypesCell row={row} />
              </Td>
              <Td dataLabel="Schedule">{specSchedule(row.spec) || 'Default'}</Td>
              <Td dataLabel="Last Run">
                <LastRunCell run={list.data?.runs.get(row.id)} counts={summaryCounts(list.data?.runs.get(row.id)?.job_details)} />
              </Td>
              <Td dataLabel="Source">{row.source === 'KubernetesCRD' ? <CrdBadge source={row.source} /> : row.source}</Td>
              <Td isActionCell>
                <ScrapeNowButton id={row.id} />
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
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
