import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbDelete, dbInsert, dbSelect, dbUpdate } from '../../api/db';
import type { PersonRef, PropertyRow } from '../../api/types';
import { keys } from '../../app/queryKeys';

export interface FlagRow extends PropertyRow {
  created_by: PersonRef | null;
}

/** The Feature Flags screen: properties, and writes (which also refresh the
 * flags the whole console reads). */
export function useFeatureFlagsData() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.properties });
  const list = useQuery({
    queryKey: [...keys.properties, 'list'],
    queryFn: ({ signal }) => dbSelect<FlagRow>('properties', { select: '*,created_by(id,name,email)', order: 'name.asc' }, signal),
  });
  const create = useMutation({ mutationFn: (row: PropertyRow) => dbInsert('properties', row), onSuccess: invalidate });
  const update = useMutation({
    mutationFn: ({ name, value }: PropertyRow) => dbUpdate('properties', { name: `eq.${name}` }, { value }),
    onSuccess: invalidate,
  });
  const remove = useMutation({ mutationFn: (name: string) => dbDelete('properties', { name: `eq.${name}` }), onSuccess: invalidate });
  return { list, create, update, remove };
}
