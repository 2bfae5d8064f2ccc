// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, useLocation } from 'react-router';
import { afterEach, expect, it } from 'vitest';
import { ChecksSection, ConfigsSection, InsightsSection, PropertiesSection, TeamsSection } from './ComponentPanel';

afterEach(cleanup);

function Location() {
  return <output aria-label="location">{useLocation().search}</output>;
}

function renderAt(node: ReactNode, entry = '/topology/c1') {
  return render(
    <MemoryRouter initialEntries={[entry]}>
      {node}
      <Location />
    </MemoryRouter>,
  );
}

const done = <T,>(data: T) => ({ data, isLoading: false, error: null }) as never;

it('shows properties in the card’s order, gauges as meters', () => {
  renderAt(
    <PropertiesSection
      properties={[
        { name: 'version', text: '1.2.3' },
        { name: 'memory', label: 'Memory', value: 3 * 1024 ** 3, max: 4 * 1024 ** 3, unit: 'bytes', headline: true },
        { name: 'secret', text: 'x', type: 'hidden' },
      ]}
    />,
  );
  const section = screen.getByRole('region', { name: 'Properties' });
  expect(
    within(section)
      .getAllByRole('term')
      .map((t) => t.textContent),
  ).toEqual(['Memory', 'version']);
  const meter = within(section).getByRole('meter', { name: 'Memory' });
  expect(meter.getAttribute('aria-valuetext')).toBe('3 GB / 4 GB');
  expect(within(section).getByText('1.2.3')).toBeTruthy();
});

it('opens a check’s detail on this page, keeping the other parameters', () => {
  renderAt(
    <ChecksSection
      query={done([
        { id: 'k1', name: 'api health', type: 'http', icon: null, status: 'unhealthy' },
        { id: 'k2', name: 'db', type: 'postgres', icon: null, status: 'healthy' },
      ])}
    />,
    '/topology/c1?type=Pod',
  );
  const section = screen.getByRole('region', { name: 'Checks' });
  expect(within(section).getByRole('heading').textContent).toBe('Checks (2)');
  expect(within(section).getByRole('img', { name: 'Unhealthy' })).toBeTruthy();
  fireEvent.click(within(section).getByRole('link', { name: 'api health' }));
  expect(screen.getByLabelText('location').textContent).toBe('?type=Pod&checkId=k1&timeRange=1h');
});

it('links configs to the catalog with their health', () => {
  renderAt(
    <ConfigsSection query={done([{ id: 'cfg1', name: 'web', type: 'Kubernetes::Deployment', health: 'warning', deleted_at: null }])} />,
  );
  const section = screen.getByRole('region', { name: 'Configs' });
  expect(within(section).getByRole('link', { name: /web/ }).getAttribute('href')).toBe('/catalog/cfg1');
  expect(within(section).getByRole('img', { name: 'Warning' })).toBeTruthy();
});

it('lists insights with severity and their config', () => {
  renderAt(
    <InsightsSection
      query={done([
        {
          id: 'a1',
          config_id: 'cfg1',
          config_name: 'web',
          config_type: 'Kubernetes::Pod',
          analyzer: 'restarts',
          analysis_type: 'reliability',
          severity: 'high',
          summary: 'Restarting',
          message: null,
        },
      ])}
    />,
  );
  const section = screen.getByRole('region', { name: 'Insights' });
  expect(within(section).getByText('high')).toBeTruthy();
  expect(within(section).getByText(/Restarting/)).toBeTruthy();
  expect(within(section).getByRole('link', { name: /web/ }).getAttribute('href')).toBe('/catalog/cfg1');
});

it('lists the owning teams with their role', () => {
  renderAt(
    <TeamsSection
      query={done([
        { id: 't1', name: 'sre', role: 'owner' },
        { id: 't2', name: 'support', role: null },
      ])}
    />,
  );
  expect(
    within(screen.getByRole('region', { name: 'Teams' }))
      .getAllByRole('listitem')
      .map((li) => li.textContent),
  ).toEqual(['sre owner', 'support']);
});

it('shows the loading, error and empty states per section', () => {
  renderAt(
    <>
      <ChecksSection query={{ data: undefined, isLoading: true, error: null } as never} />
      <ConfigsSection query={{ data: undefined, isLoading: false, error: new Error('boom') } as never} />
      <TeamsSection query={done([])} />
    </>,
  );
  expect(within(screen.getByRole('region', { name: 'Checks' })).getByRole('progressbar')).toBeTruthy();
  expect(within(screen.getByRole('region', { name: 'Configs' })).getByText('boom')).toBeTruthy();
  expect(within(screen.getByRole('region', { name: 'Teams' })).getByText('No data available')).toBeTruthy();
});
