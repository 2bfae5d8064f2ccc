import { expect, it } from 'vitest';
import { cardProperties, formatBytes, formatMillicores, formatValue, gaugeOf, propertyText } from './properties';

it('formats bytes from B to YB in 1024 steps', () => {
  expect(formatBytes(0)).toBe('0 B');
  expect(formatBytes(1023)).toBe('1023 B');
  expect(formatBytes(1024)).toBe('1 KB');
  expect(formatBytes(1536)).toBe('1.5 KB');
  expect(formatBytes(3 * 1024 ** 3)).toBe('3 GB');
  expect(formatBytes(1024 ** 8)).toBe('1 YB');
  expect(formatBytes(1024 ** 9)).toBe('1024 YB');
});

it('formats millicores, in cores from 1000', () => {
  expect(formatMillicores(250)).toBe('250m');
  expect(formatMillicores(1000)).toBe('1');
  expect(formatMillicores(1500)).toBe('1.5');
});

it('writes other units after the value, at most two decimals', () => {
  expect(formatValue(2.345, 'req/s')).toBe('2.35 req/s');
  expect(formatValue(12, '')).toBe('12');
  expect(formatValue(12, null)).toBe('12');
  expect(formatValue(80, 'percent')).toBe('80%');
  expect(formatValue(1024, 'Bytes')).toBe('1 KB');
  expect(formatValue(500, 'millicores')).toBe('500m');
});

it('shows the text, else the value in its unit', () => {
  expect(propertyText({ name: 'version', text: '1.2.3', value: 4 })).toBe('1.2.3');
  expect(propertyText({ name: 'mem', value: 2048, unit: 'bytes' })).toBe('2 KB');
  expect(propertyText({ name: 'empty' })).toBe('');
});

it('gauges: a value with a max, coloured green to 75, orange above, red above 90, width clamped 5..100', () => {
  expect(gaugeOf({ name: 'x', value: 3 })).toBeUndefined();
  expect(gaugeOf({ name: 'x', value: 3, max: 0 })).toBeUndefined();
  const gib = 1024 ** 3;
  expect(gaugeOf({ name: 'memory', value: gib, max: 4 * gib, unit: 'bytes' })).toEqual({
    percent: 25,
    width: 25,
    color: 'green',
    text: '1 GB / 4 GB',
  });
  expect(gaugeOf({ name: 'm', value: 75, max: 100 })?.color).toBe('green');
  expect(gaugeOf({ name: 'm', value: 75.5, max: 100 })?.color).toBe('orange');
  expect(gaugeOf({ name: 'm', value: 90, max: 100 })?.color).toBe('orange');
  expect(gaugeOf({ name: 'm', value: 91, max: 100 })?.color).toBe('red');
  expect(gaugeOf({ name: 'm', value: 1, max: 100 })?.width).toBe(5);
  expect(gaugeOf({ name: 'm', value: 0, max: 100 })?.width).toBe(5);
  expect(gaugeOf({ name: 'm', value: 150, max: 100 })).toMatchObject({ width: 100, color: 'red' });
  expect(gaugeOf({ name: 'cpu', value: 1500, max: 2000, unit: 'millicores' })).toMatchObject({ percent: 75, text: '1.5 / 2' });
  expect(gaugeOf({ name: 'range', value: 15, min: 10, max: 20 })?.percent).toBe(50);
});

it('orders headline properties first, then by order, then as written; drops empty and hidden ones', () => {
  const names = cardProperties([
    { name: 'a', text: 'a' },
    { name: 'b', text: 'b', order: 2 },
    { name: 'c', text: 'c', headline: true },
    { name: 'd', text: 'd', order: 1 },
    { name: 'e' },
    { name: 'f', text: 'f', type: 'hidden' },
    { name: 'g', value: 1, max: 2, headline: true, order: 5 },
    { name: 'h', text: 'h', headline: true, order: 1 },
  ]).map((p) => p.name);
  expect(names).toEqual(['h', 'g', 'c', 'd', 'b', 'a']);
  expect(cardProperties(null)).toEqual([]);
});
