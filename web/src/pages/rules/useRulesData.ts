import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect, dbSoftDelete, dbUpdate, type Column, type Selected } from '../../api/db';
import { AUTHOR, SETTINGS_LIST } from '../../lib/settingsList';

const KEY = ['db', 'incident_rules'] as const;

export type RuleRow = Selected<'incident_rules', Column<'incident_rules'>, typeof AUTHOR>;

/** The live incident rules and adding one. */
export function useRulesData() {
  const queryClient = useQueryClient();
  const list = useQuery({
    queryKey: KEY,
    queryFn: ({ signal }) => dbSelect('incident_rules', { ...SETTINGS_LIST, embed: AUTHOR }, signal),
  });
  const create = useMutation({
    mutationFn: (body: Record<string, unknown>) => dbInsert('incident_rules', body),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: KEY }),
  });
  return { list, create };
}

/** One incident rule and its writes. */
export function useRuleData(id: string) {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: KEY });
  const row = useQuery({
    queryKey: [...KEY, id],
    queryFn: async ({ signal }) => (await dbSelect('incident_rules', { embed: AUTHOR, id: `eq.${id}` }, signal))[0] ?? null,
  });
  const update = useMutation({
    mutationFn: (changes: Record<string, unknown>) => dbUpdate('incident_rules', { id: `eq.${id}` }, changes),
    onSuccess: invalidate,
  });
  const remove = useMutation({ mutationFn: () => dbSoftDelete('incident_rules', id), onSuccess: invalidate });
  return { row, update, remove };
}
