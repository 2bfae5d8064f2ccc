import { expect, it } from 'vitest';
import { ApiError, errorMessage } from './errors';

it('reads field problems from the API and from the data API', () => {
  expect(new ApiError(400, { error: 'EINVALID', message: 'Name is required', field: 'name' }).fieldProblems).toEqual([
    { field: 'name', message: 'Name is required' },
  ]);
  const details = [{ field: 'subject', message: 'Either a Guest or Team must be selected' }];
  const rest = new ApiError(400, { code: 'PGRST400', message: 'Either a Guest or Team must be selected', details, hint: null });
  expect(rest.message).toBe('Either a Guest or Team must be selected');
  expect(rest.fieldProblems).toEqual([{ field: 'subject', message: 'Either a Guest or Team must be selected' }]);
  expect(new ApiError(409, { code: '23505', message: 'duplicate', details: 'Key (name) exists.' }).fieldProblems).toEqual([]);
});

it('falls back to a generic message', () => {
  expect(new ApiError(500, null).message).toBe('An error occurred');
  expect(errorMessage('nope')).toBe('An error occurred');
});
