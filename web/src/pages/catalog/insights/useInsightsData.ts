import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { dbCount, dbSelect } from '../../../api/db';
import { insightsQuery, type InsightsParams } from './insightsParams';

/** The key of every insights read (the page's refresh invalidates them). */
export const INSIGHTS_KEY = ['catalog', 'insights'] as const;

export interface InsightsOptions {
  configId?: string;
  includeDeleted: boolean;
  pageSize: number;
}

/** One page of analyses with the total. */
export function useInsights(params: InsightsParams, options: InsightsOptions) {
  return useQuery({
    queryKey: [...INSIGHTS_KEY, params, options],
    queryFn: ({ signal }) => dbCount('config_analysis_items', insightsQuery(params, options), signal),
    placeholderData: keepPreviousData,
  });
}

/** The analyzers of the analyses the caller sees, for the analyzer filter. */
export function useAnalyzers() {
  return useQuery({
    queryKey: [...INSIGHTS_KEY, 'analyzers'],
    queryFn: ({ signal }) => dbSelect('config_analysis_analyzers', { columns: ['analyzer'], order: 'analyzer.asc' }, signal),
    select: (rows) => rows.map((r) => r.analyzer),
    staleTime: 60_000,
  });
}
