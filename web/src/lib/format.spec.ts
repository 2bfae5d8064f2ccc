import { expect, it } from 'vitest';
import { formatDateTime } from './format';

it('formats timestamps in the given zone', () => {
  expect(formatDateTime('2026-03-04T05:06:07.089Z', 'timestamp', 'UTC')).toBe('2026-03-04 05:06:07.089');
  expect(formatDateTime('2026-03-04T05:06:07.089Z', 'short', 'UTC')).toBe('2026-03-04 05:06');
});

it('treats missing values and year 0001 as empty', () => {
  expect(formatDateTime(null)).toBe('');
  expect(formatDateTime('0001-01-01T00:00:00Z')).toBe('');
  expect(formatDateTime('nonsense')).toBe('');
});
