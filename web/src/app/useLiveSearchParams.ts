import { useCallback, useContext } from 'react';
import { UNSAFE_DataRouterContext, createSearchParams, useNavigate, useSearchParams, type SetURLSearchParams } from 'react-router';

/**
 * `useSearchParams` whose functional update starts from the URL as it is when
 * the update runs. react-router's starts from the params of the component's
 * last render; a navigation renders as a transition, so on a busy machine a
 * click can land before that render and its update would bring back what the
 * update before it removed (a filter cleared, then a sort, put the filter
 * back). The router's own state is current as soon as a navigation completes.
 */
export function useLiveSearchParams(): [URLSearchParams, SetURLSearchParams] {
  const [search] = useSearchParams();
  const router = useContext(UNSAFE_DataRouterContext)?.router;
  const navigate = useNavigate();
  const setSearch = useCallback<SetURLSearchParams>(
    (next, options) => {
      const current = new URLSearchParams(router ? router.state.location.search : search);
      void navigate(`?${createSearchParams(typeof next === 'function' ? next(current) : next).toString()}`, options);
    },
    [navigate, router, search],
  );
  return [search, setSearch];
}
