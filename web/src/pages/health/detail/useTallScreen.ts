import { useSyncExternalStore } from 'react';

/** Screens at least this tall show the Health Overview chart above the tabs. */
const TALL = '(min-height: 992px)';

function subscribe(onChange: () => void): () => void {
  const query = window.matchMedia(TALL);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

export function useTallScreen(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(TALL).matches);
}
