// @vitest-environment jsdom
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { FLASH_MS, useFlash } from './useFlash';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

it('a profile message clears after 10 seconds (spec part 1, section 9)', () => {
  expect(FLASH_MS).toBe(10_000);
  const { result } = renderHook(() => useFlash());
  act(() => result.current[1]({ variant: 'success', text: 'Saved' }));
  expect(result.current[0]?.text).toBe('Saved');
  act(() => void vi.advanceTimersByTime(FLASH_MS - 1));
  expect(result.current[0]?.text).toBe('Saved');
  act(() => void vi.advanceTimersByTime(1));
  expect(result.current[0]).toBeUndefined();
});

it('a new message starts its own 10 seconds', () => {
  const { result } = renderHook(() => useFlash());
  act(() => result.current[1]({ variant: 'danger', text: 'First' }));
  act(() => void vi.advanceTimersByTime(FLASH_MS - 1000));
  act(() => result.current[1]({ variant: 'success', text: 'Second' }));
  act(() => void vi.advanceTimersByTime(FLASH_MS - 1));
  expect(result.current[0]?.text).toBe('Second');
  act(() => void vi.advanceTimersByTime(1));
  expect(result.current[0]).toBeUndefined();
});
