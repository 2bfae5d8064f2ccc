// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { SEARCH_DEBOUNCE_MS, SearchBox } from './SearchBox';

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

const box = () => screen.getByRole<HTMLInputElement>('textbox', { name: 'Search things' });

it('sends the text once typing has paused', () => {
  const onChange = vi.fn();
  render(<SearchBox label="Search things" value="" onChange={onChange} />);
  fireEvent.change(box(), { target: { value: 'al' } });
  act(() => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS - 100));
  fireEvent.change(box(), { target: { value: 'alpha' } });
  act(() => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS - 100));
  expect(onChange).not.toHaveBeenCalled();
  act(() => vi.advanceTimersByTime(100));
  expect(onChange).toHaveBeenCalledExactlyOnceWith('alpha');
});

it('sends a clear at once', () => {
  const onChange = vi.fn();
  render(<SearchBox label="Search things" value="alpha" onChange={onChange} />);
  fireEvent.click(screen.getByRole('button', { name: 'Reset' }));
  act(() => vi.advanceTimersByTime(0));
  expect(onChange).toHaveBeenCalledExactlyOnceWith('');
  expect(box().value).toBe('');
});

it('follows the value when something else changes it, keeping the text it sent', () => {
  const onChange = vi.fn();
  const { rerender } = render(<SearchBox label="Search things" placeholder="By name" value="" onChange={onChange} />);
  expect(box().placeholder).toBe('By name');
  rerender(<SearchBox label="Search things" placeholder="By name" value="from-a-link" onChange={onChange} />);
  expect(box().value).toBe('from-a-link');
  fireEvent.change(box(), { target: { value: 'typed' } });
  act(() => vi.advanceTimersByTime(SEARCH_DEBOUNCE_MS));
  rerender(<SearchBox label="Search things" placeholder="By name" value="typed" onChange={onChange} />);
  expect(box().value).toBe('typed');
  expect(onChange).toHaveBeenCalledExactlyOnceWith('typed');
});
