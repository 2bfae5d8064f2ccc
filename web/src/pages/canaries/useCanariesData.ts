import { useQuery } from '@tanstack/react-query';
import { dbSelect } from '../../api/db';
import type { CanaryRow } from './checkSpec';

/** Prefix of every canaries query; writes invalidate it. */
export const CANARIES_KEY = ['db', 'canaries'] as const;

const SELECT = 'id,name,namespace,labels,spec,source,created_at,updated_at';

/** The Health Checks list: canaries not deleted, by name. */
export function useCanariesData() {
  const list = useQuery({
    queryKey: [...CANARIES_KEY, 'list'],
    queryFn: ({ signal }) => dbSelect<CanaryRow>('canaries', { select: SELECT, deleted_at: 'is.null', order: 'name.asc' }, signal),
  });
  return { list };
}
