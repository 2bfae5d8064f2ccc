import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, dbSoftDelete, dbUpdate } from '../../api/db';
import type { JsonObject } from '../../lib/yamlText';
import type { CanaryRow } from './checkSpec';
import { CANARIES_KEY } from './useCanariesData';

/** One Health Check (none while creating) and its writes. */
export function useCanaryData(id: string | undefined) {
  const queryClient = useQueryClient();
  const canary = useQuery({
    queryKey: [...CANARIES_KEY, id],
    queryFn: async ({ signal }) => ((await dbSelect('canaries', { id: `eq.${id}` }, signal))[0] as CanaryRow | undefined) ?? null,
    enabled: Boolean(id),
  });
  const invalidate = () => queryClient.invalidateQueries({ queryKey: CANARIES_KEY });
  const create = useMutation({
    mutationFn: (body: JsonObject) => dbInsert('canaries', body),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: (body: JsonObject) => dbUpdate('canaries', { id: `eq.${id}` }, body),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: () => dbSoftDelete('canaries', id ?? ''),
    onSuccess: invalidate,
  });
  return { canary, create, update, remove };
}
