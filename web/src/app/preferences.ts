import { useCallback, useState } from 'react';

/** Preferences of the shell kept in localStorage (spec part 2 section 3.5). */
export interface Preferences {
  sidebarCollapsed: boolean;
  dateTimeFormat: 'timestamp' | 'short';
  displayTimezone: string;
  pageSize: number;
}

const DEFAULTS: Preferences = {
  sidebarCollapsed: false,
  dateTimeFormat: 'timestamp',
  displayTimezone: 'Browser',
  pageSize: 50,
};

const PREFIX = 'quarterdeck.';

export function readPreference<K extends keyof Preferences>(key: K): Preferences[K] {
  try {
    const raw = window.localStorage.getItem(PREFIX + key);
    if (raw !== null) return JSON.parse(raw) as Preferences[K];
  } catch {
    // storage unavailable or a corrupt value: use the default
  }
  return DEFAULTS[key];
}

export function writePreference<K extends keyof Preferences>(key: K, value: Preferences[K]): void {
  try {
    window.localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    // storage unavailable: the preference lasts for this page only
  }
}

export function usePreference<K extends keyof Preferences>(key: K): [Preferences[K], (value: Preferences[K]) => void] {
  const [value, setValue] = useState(() => readPreference(key));
  const set = useCallback(
    (next: Preferences[K]) => {
      writePreference(key, next);
      setValue(next);
    },
    [key],
  );
  return [value, set];
}
