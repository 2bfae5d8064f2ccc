import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../../api/client';
import { dbSelect } from '../../../api/db';
import { resolveTimeRange, type TimeRange } from '../../../components/timerange/timeRange';
import { changesRequest, type ChangesParams } from './changesParams';

/** The key of every changes search (the page's refresh invalidates them). */
export const CHANGES_KEY = ['catalog', 'changes'] as const;

const keys = {
  changes: CHANGES_KEY,
  change: (id: string) => ['catalog', 'change', id] as const,
  choices: ['catalog', 'changes', 'choices'] as const,
};

export interface ChangesOptions {
  configId?: string;
  range: TimeRange;
  includeDeleted: boolean;
  pageSize: number;
}

/** One page of the changes search with its (possibly capped) total; the time
 * range is resolved when fetched, so a refresh moves a relative range along. */
export function useChanges(params: ChangesParams, options: ChangesOptions) {
  return useQuery({
    // Opening a change is no new search.
    queryKey: [...keys.changes, { ...params, change: undefined }, options],
    queryFn: ({ signal }) => {
      const range = resolveTimeRange(options.range, new Date());
      const body = changesRequest(params, { ...options, range });
      return unwrap(api.POST('/api/catalog/changes', { body, signal }));
    },
    placeholderData: keepPreviousData,
  });
}

/** The choices of the type filters: the config types and change types the caller sees. */
export function useChangeChoices() {
  return useQuery({
    queryKey: keys.choices,
    queryFn: async ({ signal }) => {
      const [configTypes, changeTypes] = await Promise.all([
        dbSelect('config_types', { columns: ['type'], order: 'type.asc' }, signal),
        dbSelect('change_types', { columns: ['change_type'], order: 'change_type.asc' }, signal),
      ]);
      return { configTypes: configTypes.map((r) => r.type), changeTypes: changeTypes.map((r) => r.change_type) };
    },
    staleTime: 60_000,
  });
}

/** One change in full: its details, patches and diff. */
export function useChange(id: string | undefined) {
  return useQuery({
    queryKey: keys.change(id ?? ''),
    queryFn: async ({ signal }) => {
      const [row] = await dbSelect(
        'config_changes',
        {
          columns: [
            'id',
            'config_id',
            'change_type',
            'severity',
            'source',
            'summary',
            'details',
            'patches',
            'diff',
            'created_by',
            'external_created_by',
            'count',
            'first_observed',
            'created_at',
          ],
          id: `eq.${id}`,
        },
        signal,
      );
      return row ?? null;
    },
    enabled: Boolean(id),
  });
}
