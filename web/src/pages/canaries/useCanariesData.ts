import { useQuery } from '@tanstack/react-query';
import { dbSelect, type Selected } from '../../api/db';
import { AUTHOR, SETTINGS_LIST } from '../../lib/settingsList';
import type { CanaryRow } from './checkSpec';

/** Prefix of every canaries query; writes invalidate it. */
export const CANARIES_KEY = ['db', 'canaries'] as const;

const COLUMNS = ['id', 'name', 'namespace', 'labels', 'spec', 'source', 'created_at', 'updated_at'] as const;

/** A row of the Health Checks list: the canary and its author. */
export type CanaryListRow = CanaryRow & Pick<Selected<'canaries', 'id', typeof AUTHOR>, 'created_by'>;

/** The Health Checks list: the newest canaries not deleted. */
export function useCanariesData() {
  const list = useQuery({
    queryKey: [...CANARIES_KEY, 'list'],
    queryFn: ({ signal }) =>
      dbSelect('canaries', { ...SETTINGS_LIST, columns: COLUMNS, embed: AUTHOR }, signal) as Promise<CanaryListRow[]>,
  });
  return { list };
}
