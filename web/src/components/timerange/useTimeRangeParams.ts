import { useCallback, useMemo } from 'react';
import { timeRangeFromParams, timeRangeToParams, type TimeRange } from './timeRange';
import { useLiveSearchParams } from '../../app/useLiveSearchParams';

/** The time range kept in the URL (or `fallback` when it names none) and a
 * setter that also drops the `resetParams`, e.g. the page index. */
export function useTimeRangeParams(fallback: TimeRange, resetParams: readonly string[] = []) {
  const [params, setParams] = useLiveSearchParams();
  const fromUrl = useMemo(() => timeRangeFromParams(params), [params]);
  const reset = resetParams.join(',');
  const setRange = useCallback(
    (range: TimeRange) =>
      setParams((current) => {
        const next = timeRangeToParams(range, current);
        for (const key of reset.split(',')) next.delete(key);
        return next;
      }),
    [setParams, reset],
  );
  return [fromUrl ?? fallback, setRange] as const;
}
