// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useParams } from 'react-router';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { readPreference, writePreference } from '../../../app/preferences';
import { testComponent } from './testComponent';
import { TopologyCard } from './TopologyCard';
import { TopologyCards } from './TopologyCards';
import type { TopologyComponent } from './types';

const GIB = 1024 ** 3;

function renderCard(component: TopologyComponent, href?: (id: string) => string) {
  render(
    <MemoryRouter>
      <TopologyCard component={component} href={href} />
    </MemoryRouter>,
  );
  return screen.getByRole('article', { name: component.name });
}

beforeEach(() => {
  window.localStorage.clear();
  window.dispatchEvent(new StorageEvent('storage', { key: null }));
});
afterEach(cleanup);

it('is coloured by its health and names it', () => {
  const card = renderCard(testComponent({ health: 'unhealthy', status: 'unhealthy' }));
  expect(card.className).toContain('qd-topology-card-red');
  expect(within(card).getByRole('img', { name: 'Unhealthy' }).className).toContain('qd-status-dot-red');
  cleanup();
  expect(renderCard(testComponent({ health: 'warning' })).className).toContain('qd-topology-card-orange');
  cleanup();
  expect(renderCard(testComponent({ health: null })).className).toContain('qd-topology-card-grey');
});

it('links its name to the component page, or where told', () => {
  const card = renderCard(testComponent({ id: 'abc', name: 'orders', text: 'Order service' }));
  expect(within(card).getByRole('link', { name: 'orders' }).getAttribute('href')).toBe('/topology/abc');
  expect(within(card).getByText('Order service')).toBeTruthy();
  cleanup();
  const viewCard = renderCard(testComponent({ id: 'abc', name: 'orders' }), (id) => `/view/topology/${id}`);
  expect(within(viewCard).getByRole('link', { name: 'orders' }).getAttribute('href')).toBe('/view/topology/abc');
});

it('shows properties, headline first, gauges as bars with their colours', () => {
  const card = renderCard(
    testComponent({
      properties: [
        { name: 'version', text: '1.4.2' },
        { name: 'memory', label: 'Memory', value: 3.8 * GIB, max: 4 * GIB, unit: 'bytes', headline: true },
        { name: 'cpu', label: 'CPU', value: 500, max: 2000, unit: 'millicores' },
        { name: 'disk', value: 80, max: 100, unit: 'percent' },
      ],
    }),
  );
  const terms = within(card)
    .getAllByRole('term')
    .map((t) => t.textContent);
  expect(terms).toEqual(['Memory', 'version', 'CPU', 'disk']);
  expect(within(card).getByText('1.4.2')).toBeTruthy();
  const memory = within(card).getByRole('meter', { name: 'Memory' });
  expect(memory.getAttribute('aria-valuetext')).toBe('3.8 GB / 4 GB');
  const bar = memory.firstElementChild as HTMLElement;
  expect(bar.className).toContain('qd-topology-gauge-red');
  expect(bar.style.width).toBe('95%');
  const cpu = within(card).getByRole('meter', { name: 'CPU' }).firstElementChild as HTMLElement;
  expect(cpu.className).toContain('qd-topology-gauge-green');
  expect(cpu.style.width).toBe('25%');
  expect(within(card).getByText('500m / 2')).toBeTruthy();
  const disk = within(card).getByRole('meter', { name: 'disk' }).firstElementChild as HTMLElement;
  expect(disk.className).toContain('qd-topology-gauge-orange');
});

it('shows child counts by health, checks and insights with severities in the title', () => {
  const card = renderCard(
    testComponent({
      summary: {
        healthy: 3,
        unhealthy: 1,
        warning: 0,
        unknown: 2,
        checks: { healthy: 4, unhealthy: 1 },
        insights: { security: { critical: 2, high: 1 }, cost: { low: 1 } },
      },
    }),
  );
  const items = within(within(card).getByRole('list', { name: 'Summary' })).getAllByRole('listitem');
  expect(items.map((i) => i.textContent)).toEqual(['1 unhealthy', '3 healthy', '2 unknown', 'Checks 4 healthy 1 unhealthy', 'Insights 4']);
  expect(items[0]?.title).toBe('1 unhealthy child');
  expect(items[3]?.title).toBe('Checks: 4 healthy, 1 unhealthy');
  expect(items[4]?.title).toBe('cost: 1 low\nsecurity: 2 critical, 1 high');
});

it('leaves the summary out when there is nothing to count, marks hidden ones, shows the status reason', () => {
  const card = renderCard(testComponent({ hidden: true, status: 'error', health: 'unhealthy', status_reason: 'connection refused' }));
  expect(within(card).queryByRole('list', { name: 'Summary' })).toBeNull();
  expect(within(card).getByText('Hidden')).toBeTruthy();
  expect(card.textContent).toContain('Error: connection refused');
});

it('cards follow the card width preference live', () => {
  render(
    <MemoryRouter>
      <TopologyCards label="Components" components={[testComponent()]} />
    </MemoryRouter>,
  );
  const list = screen.getByRole('list', { name: 'Components' });
  expect(list.style.getPropertyValue('--qd-topology-card-width')).toBe('554px');
  act(() => writePreference('topologyCardWidth', 300));
  expect(list.style.getPropertyValue('--qd-topology-card-width')).toBe('300px');
});

it('reads a stored card width off the slider as the default', () => {
  for (const stored of ['100', '251', '800', '"wide"']) {
    window.localStorage.setItem('quarterdeck.topologyCardWidth', stored);
    window.dispatchEvent(new StorageEvent('storage', { key: null }));
    expect(readPreference('topologyCardWidth')).toBe(554);
  }
  window.localStorage.setItem('quarterdeck.topologyCardWidth', '768');
  window.dispatchEvent(new StorageEvent('storage', { key: null }));
  expect(readPreference('topologyCardWidth')).toBe(768);
});

function Opened() {
  return <p>opened {useParams().id}</p>;
}

it("a click on a card's name opens the component inside the app; a modified click is left to the browser", () => {
  render(
    <MemoryRouter>
      <Routes>
        <Route path="/" element={<TopologyCards label="Components" components={[testComponent({ id: 'abc', name: 'orders' })]} />} />
        <Route path="/topology/:id" element={<Opened />} />
      </Routes>
    </MemoryRouter>,
  );
  const link = screen.getByRole('link', { name: 'orders' });
  expect(fireEvent.click(link, { ctrlKey: true })).toBe(true);
  expect(screen.queryByText('opened abc')).toBeNull();
  expect(fireEvent.click(link)).toBe(false);
  expect(screen.getByText('opened abc')).toBeTruthy();
});
