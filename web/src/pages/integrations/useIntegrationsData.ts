import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect } from '../../api/db';
import type { DirectIntegrationRow, IntegrationRow } from '../../api/types';
import { usePreference } from '../../app/preferences';
import { keys } from '../../app/queryKeys';
import { DIRECT, type DirectType } from '../../lib/integrations';

const SELECT =
  'id,name,namespace,integration_type,type,source,labels,job_status,job_time_start,created_at,updated_at,created_by(id,name,email)';

/** Refreshes the list and the rows of one direct integration table. */
export function useInvalidateIntegrations() {
  const queryClient = useQueryClient();
  return (type: DirectType) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.integrations }),
      queryClient.invalidateQueries({ queryKey: ['db', DIRECT[type].table] }),
    ]);
}

/** The Integrations list (deleted ones too when the preference says so) and
 * adding a direct integration. */
export function useIntegrationsData() {
  const [showDeleted] = usePreference('showDeleted');
  const invalidate = useInvalidateIntegrations();
  const list = useQuery({
    queryKey: [...keys.integrations, { showDeleted }],
    queryFn: ({ signal }) =>
      dbSelect<IntegrationRow>(
        'integrations_with_status',
        showDeleted ? { select: `${SELECT},deleted_at`, order: 'name' } : { select: SELECT, deleted_at: 'is.null', order: 'name' },
        signal,
      ),
  });
  const create = useMutation({
    mutationFn: ({ type, body }: { type: DirectType; body: Record<string, unknown> }) =>
      dbInsert<DirectIntegrationRow>(DIRECT[type].table, body),
    onSuccess: (_rows, { type }) => invalidate(type),
  });
  return { list, create, showDeleted };
}
