import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { dbCount, dbInsert, type Selected } from '../../../api/db';
import { usePreference } from '../../../app/preferences';
import { fetchNamedPage } from '../../integrations/lastRun';
import { useInvalidateIntegrations } from '../../integrations/useIntegrationsData';
import type { ScrapersParams } from './scraperList';

const COLUMNS = ['id', 'name', 'namespace', 'spec', 'source', 'created_at', 'updated_at'] as const;

export type ScraperRow = Selected<'config_scrapers', (typeof COLUMNS)[number]>;
/** Under the prefix every write to config_scrapers invalidates (useInvalidateIntegrations). */
const LIST_KEY = ['db', 'config_scrapers', 'list'] as const;

/** One page of the live scrapers, by name, with each one's last run. */
export function useScrapersData(params: ScrapersParams) {
  const [pageSize] = usePreference('pageSize');
  const list = useQuery({
    queryKey: [...LIST_KEY, params, pageSize],
    queryFn: ({ signal }) => fetchNamedPage('config_scrapers', COLUMNS, 'scraper', params, pageSize, signal),
    placeholderData: keepPreviousData,
  });
  return { list, pageSize };
}

/** Adds a scraper (the Catalog Scraper form's body); answers the new row. */
export function useAddScraper() {
  const invalidate = useInvalidateIntegrations();
  return useMutation({
    mutationFn: (body: Record<string, unknown>) => dbInsert('config_scrapers', body),
    onSuccess: () => invalidate('scraper'),
  });
}

/** How many live catalog items a scraper wrote (that the caller sees). */
export function useScraperItemCount(id: string) {
  return useQuery({
    queryKey: ['db', 'configs', 'scraper-count', id],
    queryFn: async ({ signal }) =>
      (await dbCount('configs', { columns: ['id'], scraper_id: `eq.${id}`, deleted_at: 'is.null', limit: 1 }, signal)).total,
  });
}
