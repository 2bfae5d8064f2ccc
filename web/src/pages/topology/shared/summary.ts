import type { ComponentSummary } from './types';

/** Open insights of all types and severities. */
export function insightCount(insights: ComponentSummary['insights'] | null | undefined): number {
  return Object.values(insights ?? {}).reduce((sum, bySeverity) => sum + Object.values(bySeverity).reduce((a, n) => a + n, 0), 0);
}

/** One line per analysis type, its severities by count: 'security: 2 critical, 1 high'. */
export function insightTitle(insights: ComponentSummary['insights'] | null | undefined): string {
  return Object.entries(insights ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(
      ([type, bySeverity]) =>
        `${type}: ${Object.entries(bySeverity)
          .filter(([, n]) => n > 0)
          .sort(([, a], [, b]) => b - a)
          .map(([severity, n]) => `${n} ${severity}`)
          .join(', ')}`,
    )
    .join('\n');
}

/** Direct children by health, in the dot's order of concern, leaving out zeros. */
export function childCounts(summary: ComponentSummary | null | undefined): { health: string; count: number }[] {
  if (!summary) return [];
  return (['unhealthy', 'warning', 'healthy', 'unknown'] as const)
    .map((health) => ({ health, count: summary[health] ?? 0 }))
    .filter(({ count }) => count > 0);
}
