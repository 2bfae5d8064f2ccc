// @vitest-environment jsdom
import { act, cleanup, render, waitFor } from '@testing-library/react';
import { RouterProvider, createMemoryRouter, type SetURLSearchParams } from 'react-router';
import { afterEach, expect, it } from 'vitest';
import { useLiveSearchParams } from './useLiveSearchParams';

afterEach(cleanup);

it('an update from an earlier render starts from the current URL, not from that render', async () => {
  const setters: SetURLSearchParams[] = [];
  function Page() {
    const [, setSearch] = useLiveSearchParams();
    setters.push(setSearch);
    return null;
  }
  const router = createMemoryRouter([{ path: '/changes', element: <Page /> }], { initialEntries: ['/changes?severity=critical'] });
  render(<RouterProvider router={router} />);
  const [first] = setters as [SetURLSearchParams];

  act(() => first((current) => (current.delete('severity'), current)));
  await waitFor(() => expect(router.state.location.search).toBe(''));
  // A click handled before the component rendered the cleared filter holds the first render's setter.
  act(() => first((current) => (current.set('sortBy', '-severity'), current)));
  await waitFor(() => expect(router.state.location.search).toBe('?sortBy=-severity'));
});
