import { useCallback, useMemo } from 'react';
import { parseHealthParams, withHealthParams, type HealthParams } from './healthParams';
import { useLiveSearchParams } from '../../app/useLiveSearchParams';

export type UpdateHealthParams = (patch: Partial<HealthParams>) => void;

/** The page's state from its URL, and a setter that writes changes back.
 * Filters replace the history entry; opening a check adds one, so Back closes
 * its dialog. */
export function useHealthParams(): [HealthParams, UpdateHealthParams] {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseHealthParams(new URLSearchParams(text)), [text]);
  const update = useCallback<UpdateHealthParams>(
    (patch) => setSearch((current) => withHealthParams(current, patch), { replace: !patch.checkId }),
    [setSearch],
  );
  return [params, update];
}
