/** The generic settings lists (teams, health checks, integrations, incident
 * rules): live rows, newest first, at most 100, each with its author. */

/** The filters, order and limit of a generic settings list. */
export const SETTINGS_LIST = { deleted_at: 'is.null', order: 'created_at.desc', limit: 100 } as const;

/** The author embedded in every row of a generic settings list. */
export const AUTHOR = { created_by: ['id', 'name', 'email'] } as const;

/** Lists of several relations, each newest first, as one list newest first. */
export function newestFirst<T extends { created_at: string | null }>(lists: readonly T[][]): T[] {
  const time = (row: T) => (row.created_at ? Date.parse(row.created_at) : 0);
  return lists.flat().sort((a, b) => time(b) - time(a));
}
