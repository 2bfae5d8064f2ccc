import { expect, test } from 'vitest';
import { NULL_AGENT_ID } from '../../../lib/healthFormat';
import { catalogFilter, configsQuery, summaryBody } from './catalogFilter';
import { parseCatalogParams } from './catalogParams';

const AGENTS = [{ id: '11111111-1111-1111-1111-111111111111', name: 'edge' }];
const PAGE = { sortBy: 'name', sortDesc: false, pageIndex: 0, pageSize: 50 } as const;
const filterOf = (url: string, includeDeleted = false) =>
  catalogFilter(parseCatalogParams(new URLSearchParams(url)), includeDeleted, AGENTS);
const query = (url: string, includeDeleted = false) => {
  const rest: Partial<ReturnType<typeof configsQuery>> = { ...configsQuery(filterOf(url, includeDeleted), PAGE) };
  delete rest.columns;
  delete rest.embed;
  return rest;
};

test('no filters: live items, one page by name', () => {
  expect(query('')).toEqual({ order: 'name.asc.nullslast,id.asc', limit: 50, offset: 0, deleted_at: 'is.null' });
  expect(query('', true)).not.toHaveProperty('deleted_at');
});

test('sorting by another column keeps name and id as tie breakers; the page sets the offset', () => {
  const page = { sortBy: 'updated_at', sortDesc: true, pageIndex: 2, pageSize: 100 } as const;
  expect(configsQuery(filterOf(''), page)).toMatchObject({
    order: 'updated_at.desc.nullslast,name.asc,id.asc',
    limit: 100,
    offset: 200,
  });
});

test('controls and search narrow together: a field set in both takes the values in both', () => {
  expect(query('type=A&type=B&q=type%3DB,C%20health%3Dhealthy')).toMatchObject({
    type: 'in.("B")',
    health: 'in.("healthy")',
  });
  expect(query('health=warning&q=health%3Dhealthy')).toMatchObject({ health: 'in.()' });
});

test('unknown health means no health too', () => {
  expect(query('health=unknown&health=warning').and).toBe('(or(health.is.null,health.in.("unknown","warning")))');
});

test('names: exact or with * wildcards, case-insensitive; free text is contained; % and _ are literal', () => {
  expect(query('q=name%3Dgraf*,loki%2050%25_off').and).toBe('(or(name.ilike."graf*",name.ilike."loki"),name.ilike."*50\\\\%\\\\_off*")');
});

test('single-valued tags and labels are one containment; alternatives an OR of containments', () => {
  const q = query('tag=env=prod&tag=team=a&tag=team=b&q=label.app%3Dweb');
  expect(q.tags).toBe('cs.{"env":"prod"}');
  expect(q.labels).toBe('cs.{"app":"web"}');
  expect(q.and).toBe('(or(tags.cs."{\\"team\\":\\"a\\"}",tags.cs."{\\"team\\":\\"b\\"}"))');
});

test('agents by id from the control, by name, id or local from the search box', () => {
  expect(query(`agent=${AGENTS[0]?.id}`).agent_id).toBe(`in.("${AGENTS[0]?.id}")`);
  expect(query('q=agent%3Dedge,local').agent_id).toBe(`in.("${AGENTS[0]?.id}","${NULL_AGENT_ID}")`);
  expect(query('q=agent%3Dnobody').agent_id).toBe('in.()');
});

test('in-list values are quoted, so commas and quotes in them stay values', () => {
  expect(query('status=a,b&status=say "hi"').status).toBe('in.("a,b","say \\"hi\\"")');
});

test('the summary takes health, status, single-valued tags and show deleted, never the type', () => {
  expect(summaryBody(filterOf('type=A&health=healthy&status=Running&tag=env=prod&tag=team=a&tag=team=b', true))).toEqual({
    health: 'healthy',
    status: 'Running',
    tags: 'env=prod',
    include_deleted_configs: true,
  });
  expect(summaryBody(filterOf('status=a,b'))).toEqual({ include_deleted_configs: false });
});
