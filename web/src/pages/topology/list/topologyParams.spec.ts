import { expect, it } from 'vitest';
import { parseTopologyParams, topologyQuery, withTopologyParams } from './topologyParams';

const parse = (qs: string) => parseTopologyParams(new URLSearchParams(qs));

it('reads defaults from an empty URL: everything, hidden components shown', () => {
  expect(parse('')).toEqual({ types: [], health: [], labels: [], team: '', owner: '', showHidden: true });
});

it('reads comma lists, dropping unknown health and labels without a value', () => {
  expect(
    parse('type=Database,Application&health=healthy,bogus,warning&labels=app=web,broken&team=sre&owner=alice&showHiddenComponents=no'),
  ).toEqual({
    types: ['Database', 'Application'],
    health: ['healthy', 'warning'],
    labels: ['app=web'],
    team: 'sre',
    owner: 'alice',
    showHidden: false,
  });
  expect(parse('showHiddenComponents=yes').showHidden).toBe(true);
  expect(parse('showHiddenComponents=other').showHidden).toBe(true);
});

it('writes filters into the URL, leaving defaults out and other parameters alone', () => {
  let search = new URLSearchParams('x=1');
  search = withTopologyParams(search, { types: ['A', 'B'], health: ['unhealthy'], showHidden: false, team: 'sre' });
  expect(search.toString()).toBe('x=1&type=A%2CB&health=unhealthy&showHiddenComponents=no&team=sre');
  search = withTopologyParams(search, { types: [], showHidden: true, team: '', labels: ['a=b', 'c=d'] });
  expect(search.toString()).toBe('x=1&health=unhealthy&labels=a%3Db%2Cc%3Dd');
  expect(parseTopologyParams(search).labels).toEqual(['a=b', 'c=d']);
});

it('maps the URL onto the call: health as status, hidden only when off, no children', () => {
  expect(topologyQuery(parse(''))).toEqual({
    depth: 0,
    status: [],
    type: [],
    labels: [],
    team: undefined,
    owner: undefined,
    hidden: undefined,
  });
  expect(topologyQuery(parse('health=warning&type=DB&labels=a=b&team=sre&owner=bob&showHiddenComponents=no'))).toEqual({
    depth: 0,
    status: ['warning'],
    type: ['DB'],
    labels: ['a=b'],
    team: 'sre',
    owner: 'bob',
    hidden: false,
  });
});
