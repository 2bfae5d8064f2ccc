import { expect, it } from 'vitest';
import { DURATION_ERROR, DURATION_PRESETS, durationLabel, parseDuration } from './durationFilter';

it('has the error text of the spec', () => {
  expect(DURATION_ERROR).toBe('duration is allowed only in milli seconds & seconds');
});

it('reads the presets as milliseconds', () => {
  expect(DURATION_PRESETS.map((p) => parseDuration(p.label))).toEqual([100, 500, 1000, 5000, 10000, 30000].map((ms) => ({ ms })));
});

it('takes milliseconds and seconds, seconds converted', () => {
  expect(parseDuration('250ms')).toEqual({ ms: 250 });
  expect(parseDuration(' 2 s ')).toEqual({ ms: 2000 });
  expect(parseDuration('1.5s')).toEqual({ ms: 1500 });
  expect(parseDuration('.5s')).toEqual({ ms: 500 });
  expect(parseDuration('10 ms')).toEqual({ ms: 10 });
  expect(parseDuration('3S')).toEqual({ ms: 3000 });
});

it('refuses anything but a number with ms or s', () => {
  for (const text of ['', '  ', 'All', '100', '1m', '2h', 'abc', 'ms', 's', '-5s', '1,5s', '1e3ms', '5 sec']) {
    expect(parseDuration(text)).toEqual({ error: 'duration is allowed only in milli seconds & seconds' });
  }
});

it('reads back as a preset or milliseconds', () => {
  expect(durationLabel(1000)).toBe('1s');
  expect(durationLabel(100)).toBe('100ms');
  expect(durationLabel(1500)).toBe('1500ms');
});
