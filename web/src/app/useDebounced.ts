import { useEffect, useState } from 'react';

/** `value`, once it has stopped changing for `ms`. Give it a primitive (e.g. a
 * JSON string): objects built afresh each render never settle. */
export function useDebounced<T extends string | number | boolean | undefined>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
