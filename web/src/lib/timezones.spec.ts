import { expect, it } from 'vitest';
import { BROWSER_ZONE, offsetLabel, timeZoneOptions, zoneOffsetMinutes } from './timezones';

const JANUARY = new Date('2026-01-15T12:00:00Z');

it('reads zone offsets', () => {
  expect(zoneOffsetMinutes('UTC', JANUARY)).toBe(0);
  expect(zoneOffsetMinutes('Asia/Kolkata', JANUARY)).toBe(330);
  expect(zoneOffsetMinutes('America/New_York', JANUARY)).toBe(-300);
  expect(zoneOffsetMinutes('America/New_York', new Date('2026-07-15T12:00:00Z'))).toBe(-240);
  expect(offsetLabel(-570)).toBe('UTC-09:30');
  expect(offsetLabel(0)).toBe('UTC+00:00');
});

it('puts Browser first, then zones by offset and name', () => {
  const options = timeZoneOptions(['Europe/Berlin', 'Asia/Kolkata', 'UTC', 'America/New_York', 'Europe/Amsterdam'], JANUARY);
  expect(options.map((o) => o.value)).toEqual([
    BROWSER_ZONE,
    'America/New_York',
    'UTC',
    'Europe/Amsterdam',
    'Europe/Berlin',
    'Asia/Kolkata',
  ]);
  expect(options[1]?.label).toBe('(UTC-05:00) America/New_York');
});

it('offers every zone the runtime knows by default', () => {
  const options = timeZoneOptions();
  expect(options[0]?.value).toBe(BROWSER_ZONE);
  expect(options.length).toBeGreaterThan(300);
  expect(options.some((o) => o.value === 'UTC')).toBe(true);
});
