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
import { ScrapeNowButton } from '../../integrations/ScrapeNowButton';
import { ScraperForm } from '../../integrations/ScraperForm';
import { useIntegrationData } from '../../integrations/useIntegrationData';
import { ResourceJobHistory } from '../../jobs/ResourceJobHistory';
import { SCRAPERS_PATH } from './scraperList';
import { useScraperItemCount } from './useScrapersData';

const TABS = { spec: 'Spec', history: 'Job History' } as const;
type TabKey = keyof typeof TABS;

function isTab(value: string | null): value is TabKey {
  return value !== null && Object.hasOwn(TABS, value);
}

/** How many live items the scraper wrote (the catalog list has no scraper filter). */
function ItemCount({ id }: { id: string }) {
  const count = useScraperItemCount(id);
  if (count.data === undefined) return null;
  return `${count.data} item${count.data === 1 ? '' : 's'}`;
}

function Scraper({ id }: { id: string }) {
  const { row: query, update, remove } = useIntegrationData('scraper', id);
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const [search, setSearch] = useSearchParams();
  const tab = isTab(search.get('tab')) ? (search.get('tab') as TabKey) : 'spec';
  const row = query.data;
  useTopBar(row ? `Scraper: ${row.name}` : 'Scraper', query.refetch, query.isFetching);
  if (query.isLoading) return <PageSpinner />;
  if (!row)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={query.error ? errorMessage(query.error) : 'No details found'} />
      </PageSection>
    );
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const readOnly = !isUiSource(row.source) || Boolean(row.deleted_at) || !authorizer.can('config_scrapers', 'write');
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
      {!row.deleted_at && (
        <div className="pf-v6-u-mb-md">
          <ScrapeNowButton id={row.id} />
        </div>
      )}
      <DescriptionList isHorizontal isCompact className="pf-v6-u-mb-md" aria-label="Details">
        <DescriptionListGroup>
          <DescriptionListTerm>Namespace</DescriptionListTerm>
          <DescriptionListDescription>{row.namespace}</DescriptionListDescription>
        </DescriptionListGroup>
        <DescriptionListGroup>
          <DescriptionListTerm>Source</DescriptionListTerm>
          <DescriptionListDescription>{sourceLabel(row.source)}</DescriptionListDescription>
        </DescriptionListGroup>
        <DescriptionListGroup>
          <DescriptionListTerm>Catalog items</DescriptionListTerm>
          <DescriptionListDescription>
            <ItemCount id={row.id} />
          </DescriptionListDescription>
        </DescriptionListGroup>
        <CreatedUpdated row={row} />
      </DescriptionList>
      <Tabs activeKey={tab} onSelect={(_e, key) => openTab(key as TabKey)} aria-label="Scraper" mountOnEnter unmountOnExit>
        <Tab eventKey="spec" title={<TabTitleText>{TABS.spec}</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <ScraperForm
              key={`${row.id}-${row.updated_at}`}
              row={row}
              readOnly={readOnly}
              isBusy={update.isPending || remove.isPending}
              onSubmit={(body) =>
                update.mutate(body, {
                  onSuccess: () => toast.success(`${row.name} updated successfully`),
                  onError: fail,
                })
              }
              onCancel={() => navigate(SCRAPERS_PATH)}
              onDelete={() =>
                remove.mutateAsync().then(() => (toast.success(`${row.name} deleted successfully`), navigate(SCRAPERS_PATH)), fail)
              }
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

/** A scraper: its Catalog Scraper form (editable when written from the UI),
 * Scrape now, its items and its job history. */
export default function ScraperPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="config_scrapers" feature="settings.config_scraper">
      <Scraper id={id} />
    </RequireAccess>
  );
}
