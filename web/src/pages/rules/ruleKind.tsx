import type { ResourceKind } from '../../components/resource-editor/ResourceEditor';
import type { SpecSchema } from '../../components/resource-editor/specSchema';
import schema from './incidentRuleSpec.schema.json';

/** An incident rule in the generic resource editor: namespaced, no labels, the
 * spec checked against the IncidentRule spec's fields (the server checks the
 * values and names the field of each problem). */
export const INCIDENT_RULE_KIND: ResourceKind = {
  id: 'rule',
  schema: schema as SpecSchema,
  hasNamespace: true,
  noLabels: true,
  specHelper:
    'YAML: priority, breakOnMatch, components, checks, configs, filter (status, severity, category, age), template, autoAssignOwner, autoResolve, autoClose, hoursOfOperation',
};

export const RULES_PATH = '/settings/rules';

export function rulePath(id: string): string {
  return `${RULES_PATH}/${id}`;
}
