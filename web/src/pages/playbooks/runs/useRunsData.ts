import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { dbCount, dbSelect, type Selected } from '../../../api/db';
import { PAGE_SIZES } from '../../../app/preferences';
import { resolveTimeRange, type TimeRange } from '../../../components/timerange/timeRange';
import { LIVE_MS, isFinished } from './runStatus';

const COLUMNS = ['id', 'playbook_id', 'status', 'start_time', 'end_time', 'created_at', 'error'] as const;
const EMBED = {
  playbook: ['id', 'title', 'icon'],
  created_by: ['id', 'name', 'email'],
  config: ['id', 'name'],
  component: ['id', 'name'],
  check: ['id', 'name'],
} as const;

export type RunRow = Selected<'playbook_runs', (typeof COLUMNS)[number], typeof EMBED>;

/** The runs page's URL state. */
export interface RunsParams {
  playbook?: string;
  status?: string;
  page: number;
  pageSize: number;
}

export function runsParams(search: URLSearchParams): RunsParams {
  const number = (key: string, fallback: number) => {
    const n = Number(search.get(key));
    return Number.isInteger(n) && n > 0 ? n : fallback;
  };
  return {
    playbook: search.get('playbook') || undefined,
    status: search.get('status') || undefined,
    page: number('page', 1),
    pageSize: number('pageSize', PAGE_SIZES[0]),
  };
}

/** A page of runs, newest first, for the filters and time range; and the playbooks for the filter. */
export function useRunsData(params: RunsParams, range: TimeRange) {
  const runs = useQuery({
    queryKey: ['db', 'playbook_runs', 'list', params, range],
    queryFn: ({ signal }) => {
      const instants = resolveTimeRange(range, new Date());
      return dbCount(
        'playbook_runs',
        {
          columns: COLUMNS,
          embed: EMBED,
          playbook_id: params.playbook && `eq.${params.playbook}`,
          status: params.status && `eq.${params.status}`,
          and: instants && `(created_at.gte.${instants.from.toISOString()},created_at.lte.${instants.to.toISOString()})`,
          order: 'created_at.desc,id',
          limit: params.pageSize,
          offset: (params.page - 1) * params.pageSize,
        },
        signal,
      );
    },
    placeholderData: keepPreviousData,
    // Live while some run on the page is unfinished.
    refetchInterval: (query) => (query.state.data?.rows.some((r) => !isFinished(r.status)) ? LIVE_MS : false),
  });
  const playbooks = useQuery({
    queryKey: ['db', 'playbooks', 'names'],
    queryFn: ({ signal }) => dbSelect('playbooks', { columns: ['id', 'title'], deleted_at: 'is.null', order: 'title' }, signal),
  });
  return { runs, playbooks };
}
