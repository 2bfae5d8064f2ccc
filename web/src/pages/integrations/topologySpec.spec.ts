import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { expect, it } from 'vitest';
import { schemaProblems } from '../../components/resource-editor/specSchema';
import { TOPOLOGY_SPEC_SCHEMA, topologyColumns } from './topologySpec';

it('is the Topology CRD spec schema', () => {
  expect(Object.keys(TOPOLOGY_SPEC_SCHEMA.properties ?? {})).toEqual(expect.arrayContaining(['schedule', 'icon', 'components', 'configs']));
});

it('accepts the sample topology and refuses a misspelt field', () => {
  const sample = parse(readFileSync(new URL('../../../../config/samples/topology.yaml', import.meta.url), 'utf8')) as { spec: unknown };
  expect(schemaProblems(sample.spec, TOPOLOGY_SPEC_SCHEMA)).toEqual([]);
  expect(schemaProblems({ schedule: 5, compnents: [] }, TOPOLOGY_SPEC_SCHEMA)).toEqual([
    'schedule: must be a string',
    'compnents: unknown field',
  ]);
});

it('mirrors the spec schedule in the schedule column, the default when none', () => {
  expect(topologyColumns({ schedule: '@daily' })).toEqual({ schedule: '@daily' });
  expect(topologyColumns({})).toEqual({ schedule: '@every 10m' });
});
