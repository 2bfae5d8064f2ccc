import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../../api/client';
import { dbSelect, type Selected } from '../../../api/db';
import { ApiError } from '../../../api/errors';
import { NULL_AGENT_ID } from '../../../lib/healthFormat';
import { rangeStart, type TimeRange } from '../checkTimeRange';

export type CheckSummary = Schemas['CheckSummary'];
export type CheckMetrics = Schemas['CheckMetrics'];

export const HISTORY_PAGE_SIZE = 50;
/** Points of the uptime and latency graph (the spec's canary graph count). */
export const GRAPH_POINTS = 300;

/** Which page of the status history to show, and its filters. */
export interface HistoryFilter {
  /** 1-based. */
  page: number;
  /** 1 for passed runs, 0 for failed ones. */
  status?: 0 | 1;
  /** Only runs that took at least this many milliseconds. */
  durationMs?: number;
}

const CANARY_COLUMNS = ['id', 'name', 'namespace', 'source', 'spec'] as const;

export type CanaryDefinition = Selected<'canaries', (typeof CANARY_COLUMNS)[number]>;

export interface CheckRelationships {
  components: Selected<'components', 'id' | 'name' | 'icon'>[];
  configs: Selected<'config_items', 'id' | 'name' | 'type'>[];
}

/** Health check queries (this dialog's and the Health page's summary) start with this. */
const HEALTH_KEY = ['canary'] as const;
const checkKey = (checkId: string) => [...HEALTH_KEY, 'check', checkId] as const;

/** The summary of one check over `range`; null when there is no such check
 * for the caller (unknown, malformed or outside their access scopes). */
async function fetchSummary(checkId: string, range: TimeRange, signal: AbortSignal): Promise<CheckSummary | null> {
  try {
    const summary = await unwrap(
      api.GET('/api/canary/api/summary', { params: { query: { check_id: checkId, since: rangeStart(range) } }, signal }),
    );
    return summary.checks_summary.find((c) => c.id === checkId) ?? null;
  } catch (error) {
    if (error instanceof ApiError && (error.status === 400 || error.status === 404)) return null;
    throw error;
  }
}

async function fetchRelationships(checkId: string, signal: AbortSignal): Promise<CheckRelationships> {
  const filter = { check_id: `eq.${checkId}`, deleted_at: 'is.null' };
  const [components, configs] = await Promise.all([
    dbSelect('check_component_relationships', { ...filter, columns: [], embed: { component: ['id', 'name', 'icon'] } }, signal),
    dbSelect('check_config_relationships', { ...filter, columns: [], embed: { config: ['id', 'name', 'type'] } }, signal),
  ]);
  // An embed is null where the caller may not see the related row.
  return {
    components: components.flatMap((link) => (link.component ? [link.component] : [])),
    configs: configs.flatMap((link) => (link.config ? [link.config] : [])),
  };
}

/** The check detail dialog: the check's summary over the range, its canary,
 * agent and relationships, a page of its status history, its metrics while a
 * chart shows them (`withMetrics`), and Run Now. */
export function useCheckDetailData(checkId: string, range: TimeRange, filter: HistoryFilter, withMetrics: boolean) {
  const queryClient = useQueryClient();
  const start = rangeStart(range);

  const summary = useQuery({
    queryKey: [...checkKey(checkId), 'summary', range],
    queryFn: ({ signal }) => fetchSummary(checkId, range, signal),
    placeholderData: keepPreviousData,
  });
  const check = summary.data ?? undefined;
  // A deleted check still has a summary, but no history or metrics to read.
  const live = Boolean(check && !check.deleted_at);

  const canary = useQuery({
    queryKey: [...checkKey(checkId), 'canary', check?.canary_id],
    queryFn: async ({ signal }) =>
      (await dbSelect('canaries', { id: `eq.${check?.canary_id}`, columns: CANARY_COLUMNS }, signal))[0] ?? null,
    enabled: Boolean(check),
  });

  const agentId = check?.agent_id;
  const agent = useQuery({
    queryKey: [...checkKey(checkId), 'agent', agentId],
    queryFn: async ({ signal }) => (await dbSelect('agents', { id: `eq.${agentId}`, columns: ['id', 'name'] }, signal))[0] ?? null,
    enabled: Boolean(agentId && agentId !== NULL_AGENT_ID),
    staleTime: 300_000,
  });

  const relationships = useQuery({
    queryKey: [...checkKey(checkId), 'relationships'],
    queryFn: ({ signal }) => fetchRelationships(checkId, signal),
    enabled: Boolean(check),
  });

  const history = useQuery({
    queryKey: [...checkKey(checkId), 'history', start, filter],
    queryFn: ({ signal }) =>
      unwrap(
        api.GET('/api/canary/api', {
          params: {
            query: {
              check: checkId,
              start,
              pageIndex: filter.page - 1,
              pageSize: HISTORY_PAGE_SIZE,
              status: filter.status,
              duration: filter.durationMs,
            },
          },
          signal,
        }),
      ),
    enabled: live,
    staleTime: 10_000,
    placeholderData: keepPreviousData,
    retry: false,
  });

  const metrics = useQuery({
    queryKey: [...checkKey(checkId), 'graph', start],
    queryFn: ({ signal }) =>
      unwrap(api.GET('/api/canary/api/graph', { params: { query: { check: checkId, start, count: GRAPH_POINTS } }, signal })),
    enabled: live && withMetrics,
    placeholderData: keepPreviousData,
  });

  const runNow = useMutation({
    mutationFn: () => unwrap(api.POST('/api/canary/run/check/{id}', { params: { path: { id: checkId } } })),
    // The run changes the check's status, history and metrics, here and in the Health page's list.
    onSuccess: () => queryClient.invalidateQueries({ queryKey: HEALTH_KEY }),
  });

  return { summary, check, canary, agent, relationships, history, metrics, runNow };
}
