import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { dbCount, dbSelect } from '../../api/db';
import { resolveTimeRange, type TimeRange } from '../../components/timerange/timeRange';
import { jobHistoryQuery, type JobFilters } from './jobFilters';
import { RESOURCE_TABLES, type JobHistoryRow } from './jobHistory';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The rows with the names of their canaries, topologies and scrapers; a
 * failed lookup leaves the names out. */
async function withResourceNames(rows: JobHistoryRow[], signal: AbortSignal): Promise<JobHistoryRow[]> {
  const lookups = Object.entries(RESOURCE_TABLES).map(async ([type, table]) => {
    const ids = [...new Set(rows.filter((r) => r.resource_type === type && UUID.test(r.resource_id ?? '')).map((r) => r.resource_id))];
    if (ids.length === 0) return [];
    const found = await dbSelect(table, { columns: ['id', 'name'], id: `in.(${ids.join(',')})` }, signal).catch(() => []);
    return found.map((f) => [`${type}/${f.id}`, f.name] as const);
  });
  const names = new Map((await Promise.all(lookups)).flat());
  return rows.map((r) => ({ ...r, resource_name: names.get(`${r.resource_type}/${r.resource_id}`) }));
}

/** One page of job history for the filters and time range (resolved when
 * fetched, so a refresh moves a relative range along), with the total. */
export function useJobHistory(filters: JobFilters, range?: TimeRange) {
  return useQuery({
    queryKey: ['db', 'job_histories', filters, range ?? null],
    queryFn: async ({ signal }) => {
      const instants = range && resolveTimeRange(range, new Date());
      const { rows, total } = await dbCount('job_histories', jobHistoryQuery(filters, instants), signal);
      return { rows: await withResourceNames(rows as JobHistoryRow[], signal), total };
    },
    placeholderData: keepPreviousData,
  });
}

/** The names jobs have run under, for the name filter. */
export function useJobHistoryNames() {
  return useQuery({
    queryKey: ['db', 'job_history_names'],
    queryFn: ({ signal }) => dbSelect('job_history_names', { order: 'name' }, signal),
    select: (rows) => rows.flatMap((r) => (r.name ? [r.name] : [])),
  });
}
