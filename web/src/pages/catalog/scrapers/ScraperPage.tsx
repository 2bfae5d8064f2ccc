import { DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { RequireAccess } from '../../../components/RequireAccess';
import { isUiSource } from '../../../lib/source';
import { IntegrationPageShell } from '../../integrations/IntegrationPageShell';
import { ScrapeNowButton } from '../../integrations/ScrapeNowButton';
import { ScraperForm } from '../../integrations/ScraperForm';
import { useIntegrationData } from '../../integrations/useIntegrationData';
import { ResourceJobHistory } from '../../jobs/ResourceJobHistory';
import { SCRAPERS_PATH } from './scraperList';
import { useScraperItemCount } from './useScrapersData';

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
  const fail = (e: unknown) => toast.error(errorMessage(e));

  return (
    <IntegrationPageShell
      label="Scraper"
      query={query}
      notFound="No details found"
      actions={(row) => !row.deleted_at && <ScrapeNowButton id={row.id} />}
      details={(row) => (
        <>
          <DescriptionListGroup>
            <DescriptionListTerm>Namespace</DescriptionListTerm>
            <DescriptionListDescription>{row.namespace}</DescriptionListDescription>
          </DescriptionListGroup>
          <DescriptionListGroup>
            <DescriptionListTerm>Catalog items</DescriptionListTerm>
            <DescriptionListDescription>
              <ItemCount id={row.id} />
            </DescriptionListDescription>
          </DescriptionListGroup>
        </>
      )}
      tabs={(row) => [
        {
          key: 'spec',
          title: 'Spec',
          body: (
            <ScraperForm
              key={`${row.id}-${row.updated_at}`}
              row={row}
              readOnly={!isUiSource(row.source) || Boolean(row.deleted_at) || !authorizer.can('config_scrapers', 'write')}
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
          ),
        },
        { key: 'history', title: 'Job History', body: <ResourceJobHistory resourceId={row.id} /> },
      ]}
    />
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
