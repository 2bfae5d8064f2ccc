import { expect, it } from 'vitest';
import { disabledFeatures, isFeatureEnabled } from './featureFlags';

it('reads {feature}.disable properties', () => {
  const disabled = disabledFeatures([
    { name: 'settings.teams.disable', value: 'true' },
    { name: 'logs.disable', value: 'false' },
    { name: 'health.disable', value: 'TRUE' },
    { name: 'topology.disable', value: ' true\n' },
    { name: 'catalog.disable', value: 'yes' },
    { name: 'playbooks.disable', value: null },
    { name: 'incidents', value: 'true' },
  ]);
  expect([...disabled].sort()).toEqual(['health', 'settings.teams', 'topology']);
  expect(isFeatureEnabled(disabled, 'settings.teams')).toBe(false);
  expect(isFeatureEnabled(disabled, 'logs')).toBe(true);
  expect(isFeatureEnabled(disabled, 'settings.job_history')).toBe(false);
  expect(isFeatureEnabled(disabled, 'settings.users')).toBe(true);
});
