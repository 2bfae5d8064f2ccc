import { describe, expect, it } from 'vitest';
import { childType, evidenceHref, historyText, hypothesisTree, statusChoices } from './incidentModel';
import { incidentsParams } from './list/useIncidentsData';

describe('childType', () => {
  it('follows root, factor, solution', () => {
    expect(childType(undefined)).toBe('root');
    expect(childType('root')).toBe('factor');
    expect(childType('factor')).toBe('solution');
    expect(childType('solution')).toBeNull();
  });
});

it('offers the statuses an incident may move to', () => {
  expect(statusChoices('resolved').map((s) => s.value)).toEqual(['open', 'investigating', 'resolved', 'closed']);
  expect(statusChoices('closed').map((s) => s.value)).toEqual(['closed']);
});

describe('hypothesisTree', () => {
  const h = (id: string, parent_id: string | null, created_at: string) => ({ id, parent_id, created_at });
  it('nests children under parents, oldest first', () => {
    const tree = hypothesisTree([h('c', 'a', '3'), h('b', null, '2'), h('a', null, '1'), h('d', 'c', '4')]);
    expect(tree.map((n) => n.item.id)).toEqual(['a', 'b']);
    expect(tree[0]?.children[0]?.item.id).toBe('c');
    expect(tree[0]?.children[0]?.children[0]?.item.id).toBe('d');
  });
  it('keeps an orphan at the top', () => {
    expect(hypothesisTree([h('x', 'gone', '1')]).map((n) => n.item.id)).toEqual(['x']);
  });
});

describe('evidenceHref', () => {
  const none = { check_id: null, config_id: null, config_change_id: null, component_id: null };
  it('links each kind of evidence', () => {
    expect(evidenceHref({ ...none, check_id: 'c1' })).toBe('/health?checkId=c1&timeRange=1h');
    expect(evidenceHref({ ...none, config_id: 'k1' })).toBe('/catalog/k1');
    expect(evidenceHref({ ...none, config_change_id: 'ch1', config_id: 'k1' }, 'k1')).toBe('/catalog/k1/changes?change=ch1');
    expect(evidenceHref({ ...none, component_id: 'p1' })).toBe('/topology/p1');
    expect(evidenceHref(none)).toBeUndefined();
  });
});

describe('incidentsParams', () => {
  it("reads filters, 'all' meaning none", () => {
    const p = incidentsParams(new URLSearchParams('status=all&severity=high&type=cost&owner=u1&page=2'));
    expect(p).toMatchObject({ status: undefined, severity: 'high', type: 'cost', owner: 'u1', page: 2 });
  });
});

it('names history events', () => {
  expect(historyText('hypothesis.created')).toBe('Hypothesis added');
  expect(historyText('something.else')).toBe('something.else');
});
