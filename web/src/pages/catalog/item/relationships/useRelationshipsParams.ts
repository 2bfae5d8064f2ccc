import { useCallback, useMemo } from 'react';
import { parseRelationshipsParams, withRelationshipsParams, type RelationshipsParams } from './relationshipsParams';
import { useLiveSearchParams } from '../../../../app/useLiveSearchParams';

/** The tab's state from the URL, and a setter writing changes back in place. */
export function useRelationshipsParams(): [RelationshipsParams, (patch: Partial<RelationshipsParams>) => void] {
  const [search, setSearch] = useLiveSearchParams();
  const text = search.toString();
  const params = useMemo(() => parseRelationshipsParams(new URLSearchParams(text)), [text]);
  const update = useCallback(
    (patch: Partial<RelationshipsParams>) => setSearch((current) => withRelationshipsParams(current, patch), { replace: true }),
    [setSearch],
  );
  return [params, update];
}
