import { useQuery } from '@tanstack/react-query';
import { dbSelect } from '../../api/db';
import type { CanaryRow } from './checkSpec';

/** Prefix of every canaries query; writes invalidate it. */
export const CANARIES_KEY = ['db', 'canaries'] as const;

const COLUMNS = ['id', 'name', 'namespace', 'labels', 'spec', 'source', 'created_at', 'updated_at'] as const;

/** The Health Checks list: canaries not deleted, by name. */
export function useCanariesData() {
  const list = useQuery({
    queryKey: [...CANARIES_KEY, 'list'],
    queryFn: ({ signal }) =>
      dbSelect('canaries', { columns: COLUMNS, deleted_at: 'is.null', order: 'name.asc' }, signal) as Promise<CanaryRow[]>,
  });
  return { list };
}
