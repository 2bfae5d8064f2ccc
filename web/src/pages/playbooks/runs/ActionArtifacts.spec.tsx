// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, expect, it } from 'vitest';
import { ActionArtifacts, size, type Artifact } from './ActionArtifacts';

afterEach(cleanup);

const artifact = (id: string, path: string, bytes: number, content_type: string | null): Artifact => ({
  id,
  playbook_run_action_id: 'a1',
  path,
  filename: path.split('/').pop() ?? path,
  size: bytes,
  content_type,
  checksum: 'sha256:00',
  created_at: '2026-01-01T00:00:00Z',
});

it('lists an action’s artifacts as named download links', () => {
  render(
    <ActionArtifacts
      action="report"
      artifacts={[
        artifact('0b6d3f4e-0000-4000-8000-000000000001', 'reports/r.json', 1536, 'application/json'),
        artifact('0b6d3f4e-0000-4000-8000-000000000002', 'stdout', 5, null),
      ]}
    />,
  );
  const list = screen.getByRole('list', { name: 'Artifacts of report' });
  const report = within(list).getByRole('link', { name: 'Download reports/r.json' });
  expect(report.getAttribute('href')).toBe('/api/artifacts/download/0b6d3f4e-0000-4000-8000-000000000001');
  expect(report.getAttribute('download')).toBe('r.json');
  expect(list.textContent).toContain('1.5 KiB · application/json');
  expect(within(list).getByRole('link', { name: 'Download stdout' })).toBeTruthy();
  expect(list.textContent).toContain('5 B');
});

it('shows nothing for an action without artifacts', () => {
  const { container } = render(<ActionArtifacts action="quiet" artifacts={[]} />);
  expect(container.textContent).toBe('');
  expect(size(10 * 1024 * 1024)).toBe('10.0 MiB');
});
