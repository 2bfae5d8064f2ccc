import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbDelete, dbInsert, dbSelect, dbUpdate, type Column, type Selected } from '../../api/db';
import { keys } from '../../app/queryKeys';

const AUTHOR = { created_by: ['id', 'name', 'email'] } as const;

export type FlagRow = Selected<'properties', Column<'properties'>, typeof AUTHOR>;
type Flag = Selected<'properties', 'name' | 'value'>;

/** The Feature Flags screen: properties, and writes (which also refresh the
 * flags the whole console reads). */
export function useFeatureFlagsData() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.properties });
  const list = useQuery({
    queryKey: [...keys.properties, 'list'],
    queryFn: ({ signal }) => dbSelect('properties', { embed: AUTHOR, order: 'name.asc' }, signal),
  });
  const create = useMutation({ mutationFn: (row: Flag) => dbInsert('properties', row), onSuccess: invalidate });
  const update = useMutation({
    mutationFn: ({ name, value }: Flag) => dbUpdate('properties', { name: `eq.${name}` }, { value }),
    onSuccess: invalidate,
  });
  const remove = useMutation({ mutationFn: (name: string) => dbDelete('properties', { name: `eq.${name}` }), onSuccess: invalidate });
  return { list, create, update, remove };
}
