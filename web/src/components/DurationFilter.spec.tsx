// @vitest-environment jsdom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, expect, it, vi } from 'vitest';
import { DurationFilter } from './DurationFilter';

afterEach(cleanup);

const ERROR = 'duration is allowed only in milli seconds & seconds';

it('shows a preset as chosen and no custom field', () => {
  render(<DurationFilter value={1000} onChange={vi.fn()} />);
  expect(screen.getByRole('button', { name: 'Duration' }).textContent).toBe('1s');
  expect(screen.queryByRole('textbox', { name: 'Custom duration' })).toBeNull();
});

it('applies a valid custom value on Enter and refuses an invalid one', () => {
  const onChange = vi.fn();
  render(<DurationFilter value={1500} onChange={onChange} />);
  expect(screen.getByRole('button', { name: 'Duration' }).textContent).toBe('Custom');
  const custom = screen.getByRole('textbox', { name: 'Custom duration' }) as HTMLInputElement;
  expect(custom.value).toBe('1500ms');

  fireEvent.change(custom, { target: { value: '2 minutes' } });
  fireEvent.submit(custom);
  expect(screen.getByText(ERROR)).toBeTruthy();
  expect(custom.getAttribute('aria-invalid')).toBe('true');
  expect(onChange).not.toHaveBeenCalled();

  fireEvent.change(custom, { target: { value: '1.2s' } });
  fireEvent.submit(custom);
  expect(screen.queryByText(ERROR)).toBeNull();
  expect(onChange).toHaveBeenCalledWith(1200);
});
