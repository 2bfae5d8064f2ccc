import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, type Selected } from '../../api/db';
import { usePreference } from '../../app/preferences';
import { keys } from '../../app/queryKeys';
import { DIRECT, INTEGRATION_TYPES, type DirectType } from '../../lib/integrations';
import { AUTHOR, newestFirst, SETTINGS_LIST } from '../../lib/settingsList';

const COLUMNS = [
  'id',
  'name',
  'namespace',
  'integration_type',
  'type',
  'source',
  'labels',
  'job_status',
  'job_time_start',
  'created_at',
  'updated_at',
  'deleted_at',
] as const;

/** A row of the Integrations list (direct and GitOps integrations). The
 * registry leaves a view's columns nullable; these come from NOT NULL columns
 * of the integration tables. */
export type IntegrationRow = Omit<
  Selected<'integrations_with_status', (typeof COLUMNS)[number], typeof AUTHOR>,
  'id' | 'name' | 'integration_type'
> & { id: string; name: string; integration_type: string };

/** Refreshes the list and the rows of one direct integration table. */
export function useInvalidateIntegrations() {
  const queryClient = useQueryClient();
  return (type: DirectType) =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: keys.integrations }),
      queryClient.invalidateQueries({ queryKey: ['db', DIRECT[type].table] }),
    ]);
}

/** The Integrations list and adding a direct integration. Each kind of
 * integration is a generic settings list of its own (newest first, at most 100,
 * deleted ones too when the preference says so); the list shows them merged,
 * newest first. */
export function useIntegrationsData() {
  const [showDeleted] = usePreference('showDeleted');
  const invalidate = useInvalidateIntegrations();
  const list = useQuery({
    queryKey: [...keys.integrations, { showDeleted }],
    queryFn: async ({ signal }) =>
      newestFirst(
        await Promise.all(
          INTEGRATION_TYPES.map(
            (type) =>
              dbSelect(
                'integrations_with_status',
                {
                  ...SETTINGS_LIST,
                  deleted_at: showDeleted ? undefined : SETTINGS_LIST.deleted_at,
                  integration_type: `eq.${type}`,
                  columns: COLUMNS,
                  embed: AUTHOR,
                },
                signal,
              ) as Promise<IntegrationRow[]>,
          ),
        ),
      ),
  });
  const create = useMutation({
    mutationFn: ({ type, body }: { type: DirectType; body: Record<string, unknown> }) => dbInsert(DIRECT[type].table, body),
    onSuccess: (_rows, { type }) => invalidate(type),
  });
  return { list, create, showDeleted };
}
