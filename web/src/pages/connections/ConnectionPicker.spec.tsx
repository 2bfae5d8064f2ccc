// @vitest-environment jsdom
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { api } from '../../api/client';
import { ConnectionPicker } from './ConnectionPicker';

vi.mock('../../api/client', async (original) => ({
  ...(await original<typeof import('../../api/client')>()),
  api: { GET: vi.fn() },
}));

afterEach(cleanup);

const OPTIONS = [
  { id: '1', name: 'main', namespace: 'db', type: 'postgres', ref: 'connection://db/main' },
  { id: '2', name: 'reports', namespace: 'default', type: 'mysql', ref: 'connection://default/reports' },
];

function Picker() {
  const [value, setValue] = useState('');
  return (
    <>
      <label htmlFor="picker">Connection</label>
      <ConnectionPicker id="picker" label="Connection" types={['postgres', 'mysql']} value={value} onChange={setValue} />
      <output>{value}</output>
    </>
  );
}

it('offers connections of the fitting types and fills the chosen ref, still taking free text', async () => {
  vi.mocked(api.GET).mockResolvedValue({ data: OPTIONS, response: new Response(null, { status: 200 }) } as never);
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Picker />
    </QueryClientProvider>,
  );
  expect(vi.mocked(api.GET).mock.calls[0]?.[0]).toBe('/api/connections/options');
  expect(vi.mocked(api.GET).mock.calls[0]?.[1]).toMatchObject({ params: { query: { type: ['postgres', 'mysql'] } } });
  const input = screen.getByRole('combobox', { name: 'Connection' });
  fireEvent.change(input, { target: { value: 'rep' } });
  const option = await screen.findByRole('option', { name: /connection:\/\/default\/reports/ });
  expect(screen.queryByRole('option', { name: /connection:\/\/db\/main/ })).toBeNull();
  fireEvent.click(option);
  expect(screen.getByRole('status').textContent).toBe('connection://default/reports');
  fireEvent.change(input, { target: { value: 'connection://elsewhere/other' } });
  expect(screen.getByRole('status').textContent).toBe('connection://elsewhere/other');
});
