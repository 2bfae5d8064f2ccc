import { expect, it } from 'vitest';
import { DURATION_ERROR, DURATION_PRESETS, parseDurationFilter } from './durationFilter';

it('has the error text of the spec', () => {
  expect(DURATION_ERROR).toBe('duration is allowed only in milli seconds & seconds');
});

it('reads the presets as milliseconds', () => {
  expect(DURATION_PRESETS.map((p) => parseDurationFilter(p).ms)).toEqual([100, 500, 1000, 5000, 10000, 30000]);
});

it('means no filter for All or nothing', () => {
  expect(parseDurationFilter('All')).toEqual({ ms: undefined });
  expect(parseDurationFilter('  ')).toEqual({ ms: undefined });
});

it('converts custom seconds to milliseconds', () => {
  expect(parseDurationFilter('250ms')).toEqual({ ms: 250 });
  expect(parseDurationFilter(' 2 s ')).toEqual({ ms: 2000 });
  expect(parseDurationFilter('1.5s')).toEqual({ ms: 1500 });
  expect(parseDurationFilter('3S')).toEqual({ ms: 3000 });
});

it('refuses anything but a number with ms or s', () => {
  for (const text of ['1m', '2h', '100', 'abc', 'ms', '-5s', '1,5s', '5 sec']) {
    expect(parseDurationFilter(text)).toEqual({ error: 'duration is allowed only in milli seconds & seconds' });
  }
});
