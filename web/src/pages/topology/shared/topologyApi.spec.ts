import { expect, it } from 'vitest';
import { topologyUrl } from './topologyApi';

it('writes lists comma-separated and leaves out what is unset', () => {
  expect(topologyUrl({})).toBe('/api/canary/api/topology');
  expect(
    topologyUrl({
      status: ['healthy', 'warning'],
      type: [],
      labels: ['app=web', 'tier=1'],
      owner: '',
      team: 'sre',
      hidden: false,
      depth: 2,
    }),
  ).toBe('/api/canary/api/topology?status=healthy%2Cwarning&labels=app%3Dweb%2Ctier%3D1&team=sre&hidden=false&depth=2');
});
