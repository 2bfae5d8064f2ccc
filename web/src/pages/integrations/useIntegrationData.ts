import { useMutation, useQuery } from '@tanstack/react-query';
import { dbSelect, dbSoftDelete, dbUpdate } from '../../api/db';
import type { DirectIntegrationRow } from '../../api/types';
import { keys } from '../../app/queryKeys';
import { DIRECT, type DirectType } from '../../lib/integrations';
import { useInvalidateIntegrations } from './useIntegrationsData';

/** One direct integration (topology, catalog scraper or log backend) and its writes. */
export function useIntegrationData(type: DirectType, id: string) {
  const { table } = DIRECT[type];
  const invalidate = useInvalidateIntegrations();
  const row = useQuery({
    queryKey: keys.integration(table, id),
    queryFn: async ({ signal }) =>
      (await dbSelect<DirectIntegrationRow>(table, { select: '*,created_by(id,name,email)', id: `eq.${id}` }, signal))[0] ?? null,
  });
  const update = useMutation({
    mutationFn: (changes: Record<string, unknown>) => dbUpdate<DirectIntegrationRow>(table, { id: `eq.${id}` }, changes),
    onSuccess: () => invalidate(type),
  });
  const remove = useMutation({ mutationFn: () => dbSoftDelete(table, id), onSuccess: () => invalidate(type) });
  return { row, update, remove };
}
