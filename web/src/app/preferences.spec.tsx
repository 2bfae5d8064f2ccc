// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { DEFAULTS, readPreference, usePreference, writePreference } from './preferences';

/** Forgets the cached values, as another tab's write would. */
function reload() {
  window.dispatchEvent(new StorageEvent('storage', { key: null }));
}

beforeEach(() => {
  window.localStorage.clear();
  reload();
});
afterEach(cleanup);

it('defaults: timestamp, Browser zone, 50 rows, deleted items hidden', () => {
  expect(readPreference('dateTimeFormat')).toBe('timestamp');
  expect(readPreference('displayTimezone')).toBe('Browser');
  expect(readPreference('pageSize')).toBe(50);
  expect(readPreference('showDeleted')).toBe(false);
  expect(readPreference('sidebarCollapsed')).toBe(false);
});

it('keeps values in localStorage', () => {
  writePreference('dateTimeFormat', 'medium');
  writePreference('showDeleted', true);
  expect(window.localStorage.getItem('quarterdeck.dateTimeFormat')).toBe('"medium"');
  reload();
  expect(readPreference('dateTimeFormat')).toBe('medium');
  expect(readPreference('showDeleted')).toBe(true);
});

it('reads corrupt, mistyped or unknown stored values as the default', () => {
  window.localStorage.setItem('quarterdeck.pageSize', '{oops');
  window.localStorage.setItem('quarterdeck.showDeleted', '"yes"');
  window.localStorage.setItem('quarterdeck.dateTimeFormat', '"fancy"');
  window.localStorage.setItem('quarterdeck.displayTimezone', '42');
  reload();
  expect(readPreference('pageSize')).toBe(DEFAULTS.pageSize);
  expect(readPreference('showDeleted')).toBe(false);
  expect(readPreference('dateTimeFormat')).toBe('timestamp');
  expect(readPreference('displayTimezone')).toBe('Browser');
  window.localStorage.setItem('quarterdeck.pageSize', '75');
  reload();
  expect(readPreference('pageSize')).toBe(50);
});

function Shown() {
  const [format] = usePreference('dateTimeFormat');
  return <span>{format}</span>;
}

it('re-renders readers when a preference changes here or in another tab', () => {
  render(<Shown />);
  expect(screen.getByText('timestamp')).toBeTruthy();
  act(() => writePreference('dateTimeFormat', 'full'));
  expect(screen.getByText('full')).toBeTruthy();
  act(() => {
    window.localStorage.setItem('quarterdeck.dateTimeFormat', '"short"');
    window.dispatchEvent(new StorageEvent('storage', { key: 'quarterdeck.dateTimeFormat' }));
  });
  expect(screen.getByText('short')).toBeTruthy();
});
