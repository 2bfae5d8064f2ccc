// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import { RouterProvider, createMemoryRouter } from 'react-router';
import { afterEach, expect, it, vi } from 'vitest';
import { RouteError } from './RouteError';

afterEach(cleanup);

function Broken(): never {
  throw new Error('the widget fell over');
}

it('shows the error boundary text and the message of an uncaught render error', async () => {
  const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
  const router = createMemoryRouter([{ path: '/', element: <Broken />, errorElement: <RouteError /> }]);
  render(<RouterProvider router={router} />);
  expect(await screen.findByText('Sorry.. there was an error')).toBeTruthy();
  expect(screen.getByText('the widget fell over')).toBeTruthy();
  expect(logged).toHaveBeenCalled();
});
