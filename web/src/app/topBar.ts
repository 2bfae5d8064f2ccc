import { createContext, useContext, useEffect } from 'react';

/** What the current page shows in the top bar. */
export interface TopBarState {
  title: string;
  onRefresh?: () => void;
  isLoading?: boolean;
}

export const TopBarContext = createContext<(state: TopBarState) => void>(() => {});

/** Sets the top bar title (and document title) and, optionally, a refresh
 * button that spins while `isLoading`. */
export function useTopBar(title: string, onRefresh?: () => unknown, isLoading = false): void {
  const setTopBar = useContext(TopBarContext);
  useEffect(() => {
    setTopBar({ title, isLoading, onRefresh: onRefresh ? () => void onRefresh() : undefined });
  }, [setTopBar, title, onRefresh, isLoading]);
  useEffect(() => {
    document.title = `${title} | Quarterdeck`;
  }, [title]);
}
