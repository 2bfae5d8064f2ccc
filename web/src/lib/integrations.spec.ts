import { expect, it } from 'vitest';
import { addIntegrationTitle, integrationPath, jobStatusColor, labelRows, labelsError, labelsObject, typeLabel } from './integrations';

it('names each kind of integration', () => {
  expect(typeLabel('topology', null)).toBe('Custom Topology');
  expect(typeLabel('scraper', 'aws')).toBe('Catalog Scraper · aws');
  expect(typeLabel('scraper', null)).toBe('Catalog Scraper');
  expect(typeLabel('logging_backend', null)).toBe('Log Backend');
  expect(typeLabel('gitops', 'aws')).toBe('GitOps · aws');
  expect(typeLabel('gitops', null)).toBe('GitOps');
  expect(typeLabel('something_new', null)).toBe('something_new');
});

it('links direct integrations to their edit page only', () => {
  expect(integrationPath({ id: 'a1', integration_type: 'topology' })).toBe('/settings/integrations/topology/a1');
  expect(integrationPath({ id: 'a1', integration_type: 'logging_backend' })).toBe('/settings/integrations/logging_backend/a1');
  expect(integrationPath({ id: 'a1', integration_type: 'gitops' })).toBeUndefined();
  expect(integrationPath({ id: 'a1', integration_type: 'toString' })).toBeUndefined();
});

it('colours job statuses as the spec says', () => {
  expect(['RUNNING', 'SUCCESS', 'WARNING', 'FAILED', 'STOPPED', 'SKIPPED'].map(jobStatusColor)).toEqual([
    'yellow',
    'green',
    'orange',
    'red',
    'red',
    'grey',
  ]);
  expect(jobStatusColor(null)).toBe('grey');
});

it('titles the modal with the chosen option', () => {
  expect(addIntegrationTitle()).toBe('Add Integration');
  expect(addIntegrationTitle('AWS')).toBe('Add Integration - AWS');
});

it('edits labels as rows', () => {
  expect(labelRows({ env: 'prod', n: 1 })).toEqual([
    { key: 'env', value: 'prod' },
    { key: 'n', value: '1' },
  ]);
  expect(labelRows(null)).toEqual([]);
  expect(
    labelsObject([
      { key: ' env ', value: 'prod' },
      { key: '', value: '' },
    ]),
  ).toEqual({ env: 'prod' });
  expect(labelsError([{ key: '', value: 'x' }])).toBe('Every label needs a key');
  expect(
    labelsError([
      { key: 'a', value: '1' },
      { key: 'a ', value: '2' },
    ]),
  ).toBe("Label 'a' is given twice");
  expect(labelsError([{ key: '', value: '' }])).toBeUndefined();
});
