import { describe, expect, it } from 'vitest';
import { parseRelationshipsParams, typeFilter, withRelationshipsParams } from './relationshipsParams';

describe('relationships params', () => {
  it('defaults to both directions, the API depth and the graph', () => {
    expect(parseRelationshipsParams(new URLSearchParams())).toEqual({ direction: 'both', depth: 10, view: 'graph' });
  });

  it('reads known values and ignores others', () => {
    expect(parseRelationshipsParams(new URLSearchParams('direction=incoming&depth=2&view=list'))).toEqual({
      direction: 'incoming',
      depth: 2,
      view: 'list',
    });
    expect(parseRelationshipsParams(new URLSearchParams('direction=up&depth=7&view=tree'))).toEqual({
      direction: 'both',
      depth: 10,
      view: 'graph',
    });
  });

  it('writes changes, keeps other params and leaves defaults out', () => {
    const next = withRelationshipsParams(new URLSearchParams('other=1&depth=3'), { direction: 'outgoing' });
    expect(next.toString()).toBe('other=1&depth=3&direction=outgoing');
    expect(withRelationshipsParams(next, { depth: 10, direction: 'both' }).toString()).toBe('other=1');
  });

  it('maps both directions to the API type filter all', () => {
    expect(typeFilter('both')).toBe('all');
    expect(typeFilter('incoming')).toBe('incoming');
  });
});
