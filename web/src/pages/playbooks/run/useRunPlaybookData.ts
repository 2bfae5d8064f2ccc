import { useMutation, useQuery } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../../api/client';
import { dbSelect } from '../../../api/db';
import { fetchParams, runPlaybook, type RunTarget } from '../playbookApi';
import type { ParameterType } from '../parameters';

export type TargetKind = 'configs' | 'components' | 'checks';

/** A playbook's `spec.configs`, `components` or `checks` selector, as its spec writes it. */
export interface SpecSelector {
  id?: string;
  name?: string;
  namespace?: string;
  agent?: string;
  types?: string[] | string;
  statuses?: string[] | string;
  health?: string;
  search?: string;
}

const TARGET_ID: Record<TargetKind, keyof RunTarget> = { configs: 'config_id', components: 'component_id', checks: 'check_id' };

export const targetOf = (kind: TargetKind, id: string): RunTarget => ({ [TARGET_ID[kind]]: id });

const csv = (v: string[] | string | undefined) => (Array.isArray(v) ? v.join(',') : v);

/** A spec selector as the resource search takes it, narrowed to names containing `term`. */
export function searchSelector(s: SpecSelector, term: string): Schemas['ResourceSelector'] {
  const name = term.trim() && !s.name ? `*${term.trim()}*` : s.name;
  return {
    id: s.id,
    name,
    namespace: s.namespace,
    agent: s.agent,
    types: csv(s.types),
    statuses: csv(s.statuses),
    health: s.health,
    search: s.search,
  };
}

interface Args {
  playbookId: string;
  /** The resource the run is about; the parameters load once it is known. */
  target?: RunTarget;
  /** Where the user picks the resource, when the dialog was opened without one. */
  pick?: { kind: TargetKind; selectors: SpecSelector[]; term: string };
}

/** The Run Playbook dialog's calls: the resources it may run on, the
 * parameters with their defaults for the chosen one, and the run. */
export function useRunPlaybookData({ playbookId, target, pick }: Args) {
  const params = useQuery({
    queryKey: ['playbook', playbookId, 'params', target],
    queryFn: ({ signal }) => fetchParams(playbookId, target ?? {}, signal),
    enabled: target !== undefined,
  });
  const resources = useQuery({
    queryKey: ['playbook', playbookId, 'resources', pick],
    queryFn: ({ signal }) =>
      unwrap(
        api.POST('/api/resources/search', {
          body: { [pick?.kind ?? 'configs']: pick?.selectors.map((s) => searchSelector(s, pick.term)), limit: 50 },
          signal,
        }),
      ).then((found) => found[pick?.kind ?? 'configs']),
    enabled: pick !== undefined && pick.selectors.length > 0,
  });
  const run = useMutation({ mutationFn: runPlaybook });
  return { params, resources, run };
}

const PICKED: Partial<Record<ParameterType, 'checks' | 'components' | 'config_items' | 'people' | 'teams'>> = {
  check: 'checks',
  component: 'components',
  config: 'config_items',
  configs: 'config_items',
  people: 'people',
  team: 'teams',
};

/** The choices of a picker parameter (check, component, config, configs, people, team), by name. */
export function usePickerOptions(type: ParameterType) {
  const relation = PICKED[type];
  return useQuery({
    queryKey: ['playbook', 'picker', relation],
    queryFn: async ({ signal }) => {
      if (relation === 'people') {
        const rows = await dbSelect(
          'people',
          { columns: ['id', 'name', 'email'], deleted_at: 'is.null', order: 'name', limit: 500 },
          signal,
        );
        return rows.map((r) => ({ value: r.id, label: r.name, description: r.email ?? undefined }));
      }
      if (!relation) return [];
      const rows = await dbSelect(relation, { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name', limit: 500 }, signal);
      return rows.map((r) => ({ value: r.id, label: r.name ?? r.id }));
    },
    enabled: relation !== undefined,
    staleTime: 60_000,
  });
}
