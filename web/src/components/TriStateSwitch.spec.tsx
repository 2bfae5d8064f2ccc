// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, expect, it, vi } from 'vitest';
import { TriStateSwitch, type TriState } from './TriStateSwitch';

afterEach(cleanup);

function Stateful({ onChange }: { onChange(value: TriState): void }) {
  const [value, setValue] = useState<TriState>(undefined);
  return (
    <TriStateSwitch
      label="critical"
      value={value}
      onChange={(v) => {
        setValue(v);
        onChange(v);
      }}
    />
  );
}

const pressed = (group: HTMLElement) =>
  within(group)
    .getAllByRole('button')
    .filter((b) => b.getAttribute('aria-pressed') === 'true')
    .map((b) => b.textContent);

it('is a group named by its visible label, with Include, Any and Exclude', () => {
  render(<TriStateSwitch label="critical" value={undefined} onChange={() => undefined} />);
  const group = screen.getByRole('group', { name: 'critical' });
  expect(
    within(group)
      .getAllByRole('button')
      .map((b) => b.textContent),
  ).toEqual(['Include', 'Any', 'Exclude']);
  expect(screen.getByText('critical')).toBeTruthy();
  expect(pressed(group)).toEqual(['Any']);
});

it('chooses each state, one at a time', () => {
  const onChange = vi.fn();
  render(<Stateful onChange={onChange} />);
  const group = screen.getByRole('group', { name: 'critical' });
  for (const [text, state] of [
    ['Include', 1],
    ['Exclude', -1],
    ['Any', undefined],
  ] as const) {
    fireEvent.click(within(group).getByRole('button', { name: text }));
    expect(onChange).toHaveBeenLastCalledWith(state);
    expect(pressed(group)).toEqual([text]);
  }
});

it('shows the state it is given and can be disabled', () => {
  render(<TriStateSwitch label="critical" value={-1} onChange={() => undefined} isDisabled />);
  const group = screen.getByRole('group', { name: 'critical' });
  expect(pressed(group)).toEqual(['Exclude']);
  for (const button of within(group).getAllByRole('button')) expect((button as HTMLButtonElement).disabled).toBe(true);
});
