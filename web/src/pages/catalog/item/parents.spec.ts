import { describe, expect, it } from 'vitest';
import { ancestorsOf } from './parents';

describe('ancestorsOf', () => {
  it('keeps the rows on the path, root first, skipping those not seen', () => {
    const rows = [{ id: 'b' }, { id: 'self' }, { id: 'a' }, { id: 'other' }];
    expect(ancestorsOf('a.b', rows)).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(ancestorsOf('a.hidden.b', rows)).toEqual([{ id: 'a' }, { id: 'b' }]);
    expect(ancestorsOf(null, rows)).toEqual([]);
  });
});
