import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { ApiError } from '../../api/errors';
import { keys } from '../../app/queryKeys';
import { useDebounced } from '../../app/useDebounced';
import type { JsonObject } from '../../lib/yamlText';

export type GitOpsOption = Schemas['IntegrationOption'];
export type ValueProblem = Schemas['ValueProblem'];

/** Preview calls wait until typing pauses this long. */
const PREVIEW_DEBOUNCE_MS = 300;

/** The GitOps options (chart and values schema of each). */
export function useGitOpsOptions() {
  return useQuery({
    queryKey: keys.gitopsOptions,
    queryFn: ({ signal }) => unwrap(api.GET('/api/integrations/options', { signal })),
    staleTime: Infinity,
  });
}

/** Why a preview was refused for its input: the namespace's problem, and the
 * values' problems (each schema error, or the one message). */
export interface PreviewProblems {
  namespace?: string;
  values: string[];
}

export function previewProblems(error: unknown): PreviewProblems | undefined {
  if (!(error instanceof ApiError) || error.status !== 400) return undefined;
  const body = error.body as Partial<Schemas['ErrorBody']> | null;
  if (body?.field === 'namespace') return { namespace: body.message ?? error.message, values: [] };
  if (body?.field !== 'values') return undefined;
  const problems = body.errors ?? [];
  return { values: problems.length ? problems.map(problemText) : [error.message] };
}

/** '/scraper/schedule: must match …', or the message alone for the values themselves. */
export function problemText(p: ValueProblem): string {
  return p.path ? `${p.path}: ${p.message}` : p.message;
}

/** The Flux manifest and Helm commands for an option, namespace and values;
 * nothing is asked while the values do not parse (`values` undefined). */
export function useGitOpsPreview(option: string, namespace: string, values: JsonObject | undefined) {
  const request = useDebounced(values ? JSON.stringify({ option, namespace, values }) : undefined, PREVIEW_DEBOUNCE_MS);
  const preview = useQuery({
    queryKey: ['integrations', 'preview', request],
    queryFn: ({ signal }) =>
      unwrap(api.POST('/api/integrations/preview', { body: JSON.parse(request as string) as Schemas['PreviewRequest'], signal })),
    enabled: request !== undefined,
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: Infinity,
  });
  const pending = values !== undefined && JSON.stringify({ option, namespace, values }) !== request;
  return { preview, pending };
}
