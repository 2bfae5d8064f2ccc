import { describe, expect, it } from 'vitest';
import { locate, tabPath } from './configTabs';

describe('config item tabs', () => {
  it('reads the tab from the rest of the path', () => {
    expect(locate(undefined)).toEqual({ tab: 'config' });
    expect(locate('')).toEqual({ tab: 'config' });
    expect(locate('changes')).toEqual({ tab: 'changes' });
    expect(locate('checks/')).toEqual({ tab: 'checks' });
    expect(locate('view/abc%20d')).toEqual({ view: 'abc d' });
    expect(locate('view/')).toEqual({ unknown: 'view' });
    expect(locate('nope')).toEqual({ unknown: 'nope' });
  });

  it('writes a tab as a path', () => {
    expect(tabPath('x', 'config')).toBe('/catalog/x');
    expect(tabPath('x', 'insights')).toBe('/catalog/x/insights');
  });
});
