import { useSyncExternalStore } from 'react';
import { DATE_FORMATS, type DateFormat } from '../lib/format';
import { BROWSER_ZONE } from '../lib/timezones';

/** Preferences of the shell kept in localStorage under `quarterdeck.*` (decision 8.1).
 * Every view reading one re-renders when it changes, here or in another tab. */
export interface Preferences {
  sidebarCollapsed: boolean;
  dateTimeFormat: DateFormat;
  displayTimezone: string;
  pageSize: number;
  showDeleted: boolean;
  refreshRate: RefreshRate;
  /** Topology cards' width in pixels. */
  topologyCardWidth: number;
}

/** Table page sizes offered by the preferences and the tables' paginations. */
export const PAGE_SIZES = [50, 100, 200] as const;

/** Auto-refresh intervals offered (decision 14.7); '' is None. */
export const REFRESH_RATES = ['', '15s', '30s', '60s', '2m', '3m', '5m', '10m', '15m'] as const;
export type RefreshRate = (typeof REFRESH_RATES)[number];

/** The card width slider: 250 to 768 px, step 2 (spec part 2, constants). */
export const CARD_WIDTH = { min: 250, max: 768, step: 2 } as const;
const CARD_WIDTHS = Array.from(
  { length: (CARD_WIDTH.max - CARD_WIDTH.min) / CARD_WIDTH.step + 1 },
  (_, i) => CARD_WIDTH.min + i * CARD_WIDTH.step,
);

export const DEFAULTS: Preferences = {
  sidebarCollapsed: false,
  dateTimeFormat: 'timestamp',
  displayTimezone: BROWSER_ZONE,
  pageSize: 50,
  showDeleted: false,
  refreshRate: '',
  topologyCardWidth: 554,
};

/** Stored values that are not among a preference's choices read as its default. */
const ALLOWED: Partial<{ [K in keyof Preferences]: readonly Preferences[K][] }> = {
  dateTimeFormat: DATE_FORMATS,
  pageSize: PAGE_SIZES,
  refreshRate: REFRESH_RATES,
  topologyCardWidth: CARD_WIDTHS,
};

const PREFIX = 'quarterdeck.';

const cache = new Map<keyof Preferences, unknown>();
const listeners = new Set<() => void>();

function load<K extends keyof Preferences>(key: K): Preferences[K] {
  try {
    const raw = window.localStorage.getItem(PREFIX + key);
    if (raw !== null) {
      const value = JSON.parse(raw) as unknown;
      const allowed = ALLOWED[key] as readonly unknown[] | undefined;
      if (typeof value === typeof DEFAULTS[key] && (!allowed || allowed.includes(value))) return value as Preferences[K];
    }
  } catch {
    // storage unavailable or a corrupt value: use the default
  }
  return DEFAULTS[key];
}

export function readPreference<K extends keyof Preferences>(key: K): Preferences[K] {
  if (!cache.has(key)) cache.set(key, load(key));
  return cache.get(key) as Preferences[K];
}

export function writePreference<K extends keyof Preferences>(key: K, value: Preferences[K]): void {
  try {
    window.localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // storage unavailable: the preference lasts for this page only
  }
  cache.set(key, value);
  for (const listener of listeners) listener();
}

function onStorage(event: StorageEvent) {
  if (event.key !== null && !event.key.startsWith(PREFIX)) return;
  cache.clear();
  for (const listener of listeners) listener();
}

if (typeof window !== 'undefined') window.addEventListener('storage', onStorage);

export function subscribePreferences(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function usePreference<K extends keyof Preferences>(key: K): [Preferences[K], (value: Preferences[K]) => void] {
  const value = useSyncExternalStore(subscribePreferences, () => readPreference(key));
  return [value, (next: Preferences[K]) => writePreference(key, next)];
}
