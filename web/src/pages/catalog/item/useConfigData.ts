import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { dbSelect, type Selected } from '../../../api/db';
import { ApiError } from '../../../api/errors';
import { ancestorsOf } from './parents';

/** Every column of the header: all but the scraped document, which only the
 * Config tab reads (it may be a megabyte). */
const HEADER_COLUMNS = [
  'id',
  'name',
  'type',
  'config_class',
  'status',
  'health',
  'description',
  'labels',
  'tags',
  'properties',
  'external_id',
  'path',
  'parent_id',
  'agent_name',
  'created_at',
  'updated_at',
  'deleted_at',
  'summary',
] as const;

export type ConfigHeaderRow = Selected<'config_detail', (typeof HEADER_COLUMNS)[number]>;

/** How much hangs off the item; null for a caller access scopes restrict
 * (the view's counts would tell of rows they cannot see). */
export interface ConfigCounts {
  changes?: number;
  analysis?: number;
  relationships?: number;
  checks?: number;
}

const itemKey = (id: string) => ['catalog', 'item', id] as const;

/** A malformed id is no item. */
function missing(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 400 || error.status === 404);
}

async function fetchHeader(id: string, signal: AbortSignal): Promise<ConfigHeaderRow | null> {
  try {
    const rows = await dbSelect('config_detail', { id: `eq.${id}`, columns: HEADER_COLUMNS, limit: 1 }, signal);
    return rows[0] ?? null;
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

/** A config item's page: its header row (null when there is no such item for
 * the caller), its ancestors for the breadcrumb, and, when `withConfig`, the
 * scraped document. */
export function useConfigData(id: string, withConfig: boolean) {
  const header = useQuery({ queryKey: [...itemKey(id), 'header'], queryFn: ({ signal }) => fetchHeader(id, signal) });
  const row = header.data ?? undefined;
  const location = row?.external_id?.[0];

  const parents = useQuery({
    queryKey: [...itemKey(id), 'parents', location],
    queryFn: async ({ signal }) =>
      ancestorsOf(
        row?.path,
        await unwrap(api.GET('/api/db/rpc/get_parents_by_location', { params: { query: { location: location ?? '' } }, signal })),
      ),
    enabled: Boolean(location && row?.path),
  });

  const config = useQuery({
    queryKey: [...itemKey(id), 'config'],
    queryFn: async ({ signal }) =>
      (await dbSelect('config_detail', { id: `eq.${id}`, columns: ['config'], limit: 1 }, signal))[0]?.config ?? null,
    enabled: withConfig && Boolean(row),
  });

  const counts = (row?.summary ?? null) as ConfigCounts | null;
  return { header, row, parents, config, counts };
}
