import { expect, test } from 'vitest';
import { schemaProblems } from '../../components/resource-editor/specSchema';
import { INCIDENT_RULE_KIND } from './ruleKind';

test("a full Mission Control rule passes the editor's schema", () => {
  const spec = {
    priority: 1,
    breakOnMatch: true,
    autoAssignOwner: true,
    components: [{ types: ['Website'], labelSelector: 'app=web' }],
    checks: [{ name: 'api', statuses: ['unhealthy'] }],
    configs: [{ tagSelector: 'env=prod' }],
    filter: { status: ['unhealthy'], severity: ['high'], category: ['http'], age: '5m' },
    template: { title: '{{ .check.name }}', type: 'availability', severity: 'high', status: 'open', commander_id: 'x' },
    autoResolve: { timeout: '10m' },
    autoClose: { timeout: '1h' },
    hoursOfOperation: [{ start: '09:00', end: '17:00', negate: false }],
  };
  expect(schemaProblems(spec, INCIDENT_RULE_KIND.schema)).toEqual([]);
});

test('misspelt fields and wrong types are named by their path', () => {
  expect(
    schemaProblems(
      { breakOnMach: true, priority: 'high', filter: { status: 'unhealthy' }, template: { owner: 'me' } },
      INCIDENT_RULE_KIND.schema,
    ),
  ).toEqual([
    'breakOnMach: unknown field',
    'priority: must be a whole number',
    'filter.status: must be a list',
    'template.owner: unknown field',
  ]);
});
