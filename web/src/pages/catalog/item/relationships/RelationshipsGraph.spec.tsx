// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import { afterEach, expect, it } from 'vitest';
import type { RelatedItem } from './layout';
import { RelationshipsGraph } from './RelationshipsGraph';

afterEach(cleanup);

const root = { id: 'root-id', name: 'web', type: 'Kubernetes::Deployment', health: 'healthy' };
const rel = (i: number, direction = 'outgoing'): RelatedItem => ({
  id: `id-${i}`,
  name: `pod-${i}`,
  type: 'Kubernetes::Pod',
  health: i % 2 ? 'unhealthy' : null,
  direction,
  relation: 'parent',
  depth: 1,
  via_ids: ['root-id'],
});

const graph = (related: RelatedItem[]) =>
  render(
    <MemoryRouter>
      <RelationshipsGraph root={root} related={related} />
    </MemoryRouter>,
  );

it('shows each item as a link to its page named by name, type and health, the item itself current', () => {
  graph([rel(1), rel(2, 'incoming')]);
  const nodes = within(screen.getByRole('list', { name: 'Related items' }));
  expect(nodes.getByRole('link', { name: 'pod-1 Unhealthy Kubernetes::Pod' })).toHaveProperty('pathname', '/catalog/id-1');
  expect(nodes.getByRole('img', { name: 'Unhealthy' })).toBeTruthy();
  expect(nodes.getByRole('img', { name: 'Unknown' })).toBeTruthy();
  const item = nodes.getByRole('link', { current: 'page' });
  expect(item.getAttribute('href')).toBe('/catalog/root-id');
  expect(screen.getByText('Incoming, 1 hop')).toBeTruthy();
  expect(screen.getByRole('region', { name: 'Relationships graph' }).querySelectorAll('path[marker-end]')).toHaveLength(2);
});

it('renders 500 relationships at once', () => {
  const related = Array.from({ length: 500 }, (_, i) => rel(i));
  graph(related);
  // No time asserted: the browser figure is printed by e2e/catalog-perf.spec.ts.
  expect(within(screen.getByRole('list', { name: 'Related items' })).getAllByRole('link')).toHaveLength(501);
});
