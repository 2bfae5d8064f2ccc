import { useQuery } from '@tanstack/react-query';
import { dbSelect, type Selected } from '../../../api/db';

const COLUMNS = ['id', 'name', 'namespace', 'title', 'icon', 'description', 'category', 'source', 'spec'] as const;
export type PlaybookRow = Selected<'playbooks', (typeof COLUMNS)[number]>;

/** Playbooks of one category, the uncategorised ones under ''. */
export interface Category {
  name: string;
  playbooks: PlaybookRow[];
}

/** Categories by name (the uncategorised last), playbooks by title. */
export function byCategory(rows: readonly PlaybookRow[]): Category[] {
  const groups = new Map<string, PlaybookRow[]>();
  for (const row of rows) groups.set(row.category, [...(groups.get(row.category) ?? []), row]);
  return [...groups.entries()]
    .sort(([a], [b]) => (a === '' ? 1 : b === '' ? -1 : a.localeCompare(b)))
    .map(([name, playbooks]) => ({ name, playbooks: playbooks.sort((x, y) => x.title.localeCompare(y.title)) }));
}

/** The live playbooks the user sees, by category. */
export function usePlaybooksData() {
  return useQuery({
    queryKey: ['db', 'playbooks', 'list'],
    queryFn: ({ signal }) =>
      dbSelect('playbooks', { columns: COLUMNS, deleted_at: 'is.null', order: 'category,title,name' }, signal).then(byCategory),
  });
}
