import { useCallback, useEffect, useState } from 'react';

/** How long a profile section's message stays (spec part 1, section 9). */
export const FLASH_MS = 10_000;

export interface Flash {
  variant: 'success' | 'danger';
  text: string;
}

/** A section's message, cleared 10 seconds after it is shown. */
export function useFlash(): [Flash | undefined, (flash: Flash | undefined) => void] {
  const [flash, setFlash] = useState<Flash>();
  useEffect(() => {
    if (!flash) return;
    const timer = window.setTimeout(() => setFlash(undefined), FLASH_MS);
    return () => window.clearTimeout(timer);
  }, [flash]);
  return [flash, useCallback((next: Flash | undefined) => setFlash(next), [])];
}
