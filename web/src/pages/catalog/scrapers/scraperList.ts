/** What the scrapers list shows of a ScrapeConfig spec and of its last run. */
import { SCRAPER_TYPES } from '../../integrations/scrapers';
import { SCRAPE_COUNTS } from '../../jobs/jobHistory';

/** Spec keys that are settings of the whole ScrapeConfig, not scraper lists
 * (crds/src/scrape_config.rs). */
const SETTINGS = new Set(['schedule', 'retention', 'full', 'timeout', 'crdSync', 'system', 'logLevel']);

/** The scraper types this version runs (scrapers/src/run.rs `scrape`); the
 * others answer "scraper type … is not run by this version" (decision 51.11). */
const RUN = new Set(['file', 'kubernetes', 'kubernetesFile', 'http', 'sql', 'exec']);

/** A scraper list of the spec: its key, its label and whether this version runs it. */
export interface SpecType {
  key: string;
  label: string;
  isRun: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The scraper types a spec holds (non-empty lists), in the spec's order. */
export function specTypes(spec: unknown): SpecType[] {
  if (!isRecord(spec)) return [];
  return Object.entries(spec)
    .filter(([key, value]) => !SETTINGS.has(key) && Array.isArray(value) && value.length > 0)
    .map(([key]) => ({ key, label: SCRAPER_TYPES.find((t) => t.key === key)?.label ?? key, isRun: RUN.has(key) }));
}

/** The spec's schedule; empty when it runs on the default (every 60 minutes, decision 53.2). */
export function specSchedule(spec: unknown): string {
  return isRecord(spec) && typeof spec.schedule === 'string' ? spec.schedule : '';
}

/** A run's scrape summary summed over its config types: the non-zero counts,
 * in the Scrape Summary's order, e.g. "3 added · 1 updated · 40 unchanged". */
export function summaryCounts(details: unknown): string {
  if (!isRecord(details) || !isRecord(details.scrape_summary)) return '';
  const totals = new Map<string, number>(SCRAPE_COUNTS.map((c) => [c, 0]));
  for (const counts of Object.values(details.scrape_summary)) {
    if (!isRecord(counts)) continue;
    for (const count of SCRAPE_COUNTS) {
      const n = counts[count];
      if (typeof n === 'number') totals.set(count, (totals.get(count) ?? 0) + n);
    }
  }
  return [...totals]
    .filter(([, n]) => n > 0)
    .map(([count, n]) => `${n} ${count}`)
    .join(' · ');
}

/** The page of the list (1-based) and its name search, as the URL keeps them. */
export interface ScrapersParams {
  page: number;
  search: string;
}

export function parseScrapersParams(search: URLSearchParams): ScrapersParams {
  const page = Number(search.get('page'));
  return { page: Number.isInteger(page) && page > 1 ? page : 1, search: search.get('search') ?? '' };
}

/** A name search as a data API filter: case-insensitive substring, PostgREST's `*` wildcards. */
export function nameFilter(search: string): string | undefined {
  const text = search
    .trim()
    .replace(/[*,()]/g, ' ')
    .trim();
  return text ? `ilike.*${text}*` : undefined;
}

export const SCRAPERS_PATH = '/catalog/scrapers';
export const scraperPath = (id: string) => `${SCRAPERS_PATH}/${id}`;
