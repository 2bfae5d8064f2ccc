// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { UI_SOURCE } from '../../lib/source';
import { CanaryEditor } from './CanaryEditor';
import type { CanaryRow } from './checkSpec';

afterEach(cleanup);

const row = (spec: CanaryRow['spec']): CanaryRow => ({
  id: 'c1',
  name: 'web',
  namespace: 'default',
  labels: {},
  spec,
  source: UI_SOURCE,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
});

function editor(spec: CanaryRow['spec']) {
  const onSubmit = vi.fn();
  render(
    <CanaryEditor
      row={row(spec)}
      readOnly={false}
      isBusy={false}
      onSubmit={onSubmit}
      onDelete={() => Promise.resolve()}
      onLeave={() => undefined}
    />,
  );
  return onSubmit;
}

const pick = (select: string, option: string) => {
  fireEvent.click(screen.getByRole('button', { name: select }));
  fireEvent.click(screen.getByRole('option', { name: option }));
};

const update = () => screen.getByRole('button', { name: 'Update' });

describe('CanaryEditor', () => {
  it("picks the canary's icon and its check's from the check icons", () => {
    const onSubmit = editor({ exec: [{ name: 'run', script: 'true', icon: 'custom-icon' }], icon: 'exec' });
    expect(screen.getByRole('button', { name: 'Icon' }).textContent).toBe('exec');
    // A name outside the set is kept and shown.
    expect(screen.getByRole('button', { name: 'Check icon' }).textContent).toBe('custom-icon');
    pick('Icon', 'redis');
    pick('Check icon', 'None');
    fireEvent.click(update());
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ icon: 'redis', spec: { exec: [{ name: 'run', script: 'true' }] } }),
      expect.objectContaining({ id: 'exec' }),
    );
  });

  it("edits a check's own schedule beside the canary's", () => {
    const onSubmit = editor({ schedule: '@every 5m', exec: [{ name: 'run', script: 'true' }] });
    fireEvent.change(screen.getByRole('textbox', { name: 'Check schedule' }), { target: { value: '@every 30s' } });
    fireEvent.click(update());
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ spec: { exec: [{ name: 'run', script: 'true', schedule: '@every 30s' }] } }),
      expect.objectContaining({ id: 'exec' }),
    );
  });

  it('lists what the Canary schema refuses under Specs and keeps Update disabled until it is fixed', () => {
    editor({ dns: [{ name: 'lookup', query: 'example.com' }] });
    const specs = screen.getByRole('textbox', { name: 'Specs' });
    expect(update()).toHaveProperty('disabled', false);

    fireEvent.change(specs, { target: { value: 'dns:\n  - name: lookup\n    qeury: example.com\n    port: fifty\n' } });
    expect(screen.getByText('dns[0].qeury: unknown field')).toBeTruthy();
    expect(screen.getByText('dns[0].port: must be a whole number')).toBeTruthy();
    expect(update()).toHaveProperty('disabled', true);

    // Text that does not parse is ignored: the last spec that did still counts.
    fireEvent.change(specs, { target: { value: 'dns: [' } });
    expect(screen.getByText('dns[0].qeury: unknown field')).toBeTruthy();

    fireEvent.change(specs, { target: { value: 'dns:\n  - name: lookup\n    query: example.com\n    port: 53\n' } });
    expect(screen.queryByText(/unknown field|must be/)).toBeNull();
    expect(update()).toHaveProperty('disabled', false);
  });

  it('marks the Code tab of a form type while its spec has problems', () => {
    editor({ tcp: [{ endpoint: 'db:5432', thresholdMilis: 5 }] });
    expect(screen.getByRole('tab', { name: 'Code, has problems' })).toBeTruthy();
    expect(update()).toHaveProperty('disabled', true);
    fireEvent.click(screen.getByRole('tab', { name: /Code/ }));
    expect(screen.getByText('tcp[0].thresholdMilis: unknown field')).toBeTruthy();
  });
});
