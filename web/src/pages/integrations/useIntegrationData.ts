import { useMutation, useQuery } from '@tanstack/react-query';
import { dbSelect, dbSoftDelete, dbUpdate, type Column, type Selected } from '../../api/db';
import { keys } from '../../app/queryKeys';
import { DIRECT, type DirectTable, type DirectType } from '../../lib/integrations';
import { useInvalidateIntegrations } from './useIntegrationsData';

const AUTHOR = { created_by: ['id', 'name', 'email'] } as const;

/** A topology, catalog scraper or log backend row, as its form edits it. */
export type DirectIntegrationRow = Selected<DirectTable, Column<DirectTable>, typeof AUTHOR> &
  Partial<Pick<Selected<'topologies'>, 'namespace' | 'schedule'>>;

/** One direct integration (topology, catalog scraper or log backend) and its writes. */
export function useIntegrationData(type: DirectType, id: string) {
  const { table } = DIRECT[type];
  const invalidate = useInvalidateIntegrations();
  const row = useQuery({
    queryKey: keys.integration(table, id),
    queryFn: async ({ signal }) =>
      ((await dbSelect(table, { embed: AUTHOR, id: `eq.${id}` }, signal))[0] as DirectIntegrationRow | undefined) ?? null,
  });
  const update = useMutation({
    mutationFn: (changes: Record<string, unknown>) => dbUpdate(table, { id: `eq.${id}` }, changes),
    onSuccess: () => invalidate(type),
  });
  const remove = useMutation({ mutationFn: () => dbSoftDelete(table, id), onSuccess: () => invalidate(type) });
  return { row, update, remove };
}
