import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { api, unwrap, type Schemas } from '../../api/client';
import { dbSelect } from '../../api/db';
import { usePreference } from '../../app/preferences';
import { keys } from '../../app/queryKeys';
import { rangeStart, type TimeRange } from './checkTimeRange';
import type { CheckSummary } from './healthFilter';
import { durationMs } from '../../lib/healthFormat';
import { parseHealthParams } from './healthParams';

const NO_CHECKS: CheckSummary[] = [];

type Summary = Schemas['HealthSummary'];

const fetchSummary = (range: TimeRange, signal?: AbortSignal): Promise<Summary> =>
  unwrap(api.GET('/api/canary/api/summary', { params: { query: { since: rangeStart(range) } }, signal }));

/** The summary asked for when this module loaded. */
let early: { range: TimeRange; summary: Promise<Summary> } | undefined;

// Opening the console on this page loads this module alongside the shell
// (routes.tsx preloads it): the summary, the page's slowest call, then starts
// with the sign-in check instead of after it and the first render.
if (/^(\/view)?\/health$/.test(window.location.pathname)) {
  const range = parseHealthParams(new URLSearchParams(window.location.search)).timeRange;
  early = { range, summary: fetchSummary(range) };
  early.summary.catch(() => undefined);
}

/** The checks' summary over the time range, refreshed at the preferred rate
 * (each refresh aborts a fetch still running, as does a new time range), and
 * the agents' names when tabs show agents. */
export function useHealthData(timeRange: TimeRange, needAgents: boolean) {
  const [refreshRate] = usePreference('refreshRate');
  const summary = useQuery({
    queryKey: ['canary', 'summary', timeRange],
    queryFn: ({ signal }) => {
      const first = early;
      early = undefined;
      return first?.range === timeRange ? first.summary : fetchSummary(timeRange, signal);
    },
    placeholderData: keepPreviousData,
  });
  const interval = durationMs(refreshRate);
  const { refetch } = summary;
  useEffect(() => {
    if (!interval) return;
    // refetch() cancels a fetch in flight; react-query's own interval would wait for it.
    const timer = window.setInterval(() => void refetch(), interval);
    return () => window.clearInterval(timer);
  }, [interval, refetch]);
  const agents = useQuery({
    queryKey: [...keys.agents, 'names'],
    queryFn: ({ signal }) => dbSelect('agents', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name.asc' }, signal),
    staleTime: 300_000,
    enabled: needAgents,
  });
  const agentNames = useMemo(() => new Map(agents.data?.map((a) => [a.id, a.name])), [agents.data]);
  return { summary, checks: summary.data?.checks_summary ?? NO_CHECKS, agentNames };
}
