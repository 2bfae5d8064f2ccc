import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, dbSoftDelete, dbUpdate } from '../../../api/db';
import type { Insert, Update } from '../../../api/relations.gen';

/** Under the playbooks list's key, so writes refresh it. */
const KEY = ['db', 'playbooks'] as const;

/** A playbook to edit ('new' for none), and its writes. */
export function usePlaybookData(id: string) {
  const client = useQueryClient();
  const isNew = id === 'new';
  const row = useQuery({
    queryKey: [...KEY, 'item', id],
    queryFn: ({ signal }) => dbSelect('playbooks', { id: `eq.${id}`, limit: 1 }, signal).then((rows) => rows[0] ?? null),
    enabled: !isNew,
  });
  const invalidate = () => client.invalidateQueries({ queryKey: KEY });
  const create = useMutation({
    mutationFn: (body: Insert<'playbooks'>) => dbInsert('playbooks', body).then((rows) => rows[0]),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: (body: Update<'playbooks'>) => dbUpdate('playbooks', { id: `eq.${id}` }, body),
    onSuccess: invalidate,
  });
  const remove = useMutation({ mutationFn: () => dbSoftDelete('playbooks', id), onSuccess: invalidate });
  return { isNew, row, create, update, remove };
}
