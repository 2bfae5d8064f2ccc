import { expect, it } from 'vitest';
import { DATE_FORMATS, compactAge, formatDateTime } from './format';

const VALUE = '2026-03-04T05:06:07.089Z';

it('formats in each preference format in the given zone', () => {
  expect(formatDateTime(VALUE, 'timestamp', 'UTC')).toBe('2026-03-04 05:06:07.089');
  expect(formatDateTime(VALUE, 'full', 'UTC')).toBe('Mar 4 05:06:07.089');
  expect(formatDateTime(VALUE, 'medium', 'UTC')).toBe('Wed 05:06:07');
  expect(formatDateTime(VALUE, 'timestamp', 'Asia/Kolkata')).toBe('2026-03-04 10:36:07.089');
  expect(formatDateTime(VALUE, 'medium', 'America/Los_Angeles')).toBe('Tue 21:06:07');
  expect(formatDateTime('2026-01-01T00:00:00.000Z', 'timestamp', 'UTC')).toBe('2026-01-01 00:00:00.000');
});

it('formats short as the compact age, past or future', () => {
  const now = Date.parse(VALUE);
  expect(formatDateTime('2026-03-04T04:06:07.089Z', 'short', 'UTC', now)).toBe('1h');
  expect(formatDateTime('2026-03-01T05:06:07.089Z', 'short', undefined, now)).toBe('3d');
  expect(formatDateTime('2026-03-06T05:06:07.089Z', 'short', undefined, now)).toBe('in 2d');
  expect(compactAge(30_000)).toBe('30s');
  expect(compactAge(59 * 60_000)).toBe('59m');
  expect(compactAge(45 * 86_400_000)).toBe('1mo');
  expect(compactAge(800 * 86_400_000)).toBe('2y');
});

it('treats missing values and year 0001 as empty', () => {
  for (const format of DATE_FORMATS) {
    expect(formatDateTime(null, format)).toBe('');
    expect(formatDateTime('0001-01-01T00:00:00Z', format)).toBe('');
    expect(formatDateTime('nonsense', format)).toBe('');
  }
});

it('falls back to the browser zone for a zone the runtime does not know', () => {
  expect(formatDateTime(VALUE, 'timestamp', 'Mars/Olympus_Mons')).toBe(formatDateTime(VALUE, 'timestamp'));
});
