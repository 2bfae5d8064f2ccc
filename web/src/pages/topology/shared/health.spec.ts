import { expect, it } from 'vitest';
import { healthColor, healthLabel } from './health';

it('colours health as the general health dot', () => {
  for (const h of ['degraded', 'missing', 'unhealthy', 'bad', 'Unhealthy']) expect(healthColor(h)).toBe('red');
  for (const h of ['unknown', 'suspended', null, undefined, '']) expect(healthColor(h)).toBe('grey');
  for (const h of ['warning', 'warn', 'mixed']) expect(healthColor(h)).toBe('orange');
  for (const h of ['healthy', 'good', 'info']) expect(healthColor(h)).toBe('green');
});

it('names health', () => {
  expect(healthLabel('warning')).toBe('Warning');
  expect(healthLabel(null)).toBe('Unknown');
});
