import { expect, it } from 'vitest';
import { selectionText, toggled } from './selection';

it('lists up to three choices, then counts', () => {
  expect(selectionText([], 'Select')).toBe('Select');
  expect(selectionText(['a', 'b', 'c'], 'Select')).toBe('a, b, c');
  expect(selectionText(['a', 'b', 'c', 'd'], 'Select')).toBe('4 selected');
});

it('toggles a value in or out of a selection', () => {
  expect(toggled(['a', 'b'], 'a')).toEqual(['b']);
  expect(toggled(['a'], 'b')).toEqual(['a', 'b']);
});
