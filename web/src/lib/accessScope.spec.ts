import { describe, expect, it } from 'vitest';
import {
  MESSAGES,
  type AccessScopeForm,
  canRemoveScope,
  emptyForm,
  emptyScope,
  fromEntry,
  hasErrors,
  parseNames,
  scopeCount,
  toEntry,
  toPayload,
  toggleResource,
  validate,
} from './accessScope';

function valid(): AccessScopeForm {
  return { ...emptyForm(), name: 'prod', personId: 'p1', resources: ['config'], scopes: [{ ...emptyScope(), names: 'web' }] };
}

describe('resource rules', () => {
  it("choosing '*' removes the others", () => {
    expect(toggleResource(['config', 'canary'], '*')).toEqual(['*']);
  });
  it("choosing another type removes '*'", () => {
    expect(toggleResource(['*'], 'playbook')).toEqual(['playbook']);
  });
  it('toggles off a chosen type', () => {
    expect(toggleResource(['config', 'canary'], 'config')).toEqual(['canary']);
    expect(toggleResource(['*'], '*')).toEqual([]);
  });
});

describe('names as lines', () => {
  it('trims and drops blank lines', () => {
    expect(parseNames('  web \n\n api\r\n   \n')).toEqual(['web', 'api']);
    expect(parseNames('')).toEqual([]);
  });
});

describe('validation', () => {
  it('passes a valid form', () => {
    expect(hasErrors(validate(valid()))).toBe(false);
  });
  it('requires a name', () => {
    expect(validate({ ...valid(), name: '  ' }).name).toBe(MESSAGES.nameRequired);
  });
  it('requires the subject of the chosen kind', () => {
    expect(validate({ ...valid(), subjectKind: 'team' }).subject).toBe(MESSAGES.subjectRequired);
    expect(validate({ ...valid(), subjectKind: 'team', teamId: 't1' }).subject).toBeUndefined();
  });
  it('requires a resource type', () => {
    expect(validate({ ...valid(), resources: [] }).resources).toBe(MESSAGES.resourcesRequired);
  });
  it('requires a scope', () => {
    expect(validate({ ...valid(), scopes: [] }).scopes).toBe(MESSAGES.scopesRequired);
  });
  it('requires something in each scope', () => {
    const errors = validate({
      ...valid(),
      scopes: [
        { ...emptyScope(), names: 'a' },
        { tags: [{ key: ' ', value: 'x' }], agents: [], names: '\n' },
      ],
    });
    expect(errors.scope).toEqual({ 1: MESSAGES.scopeEmpty });
  });
  it("keeps '*' alone among names", () => {
    expect(validate({ ...valid(), scopes: [{ ...emptyScope(), names: 'a\n*' }] }).scope[0]).toBe(MESSAGES.nameWildcardAlone);
    expect(validate({ ...valid(), scopes: [{ ...emptyScope(), names: '*' }] }).scope).toEqual({});
  });
});

describe('payload', () => {
  it('keeps only the chosen subject and non-empty scope parts', () => {
    const form: AccessScopeForm = {
      ...valid(),
      teamId: 't1',
      description: ' ',
      scopes: [
        {
          tags: [
            { key: 'env', value: 'prod' },
            { key: '', value: 'x' },
          ],
          agents: ['a1'],
          names: 'web\n',
        },
      ],
    };
    expect(toPayload(form)).toEqual({
      name: 'prod',
      namespace: 'default',
      description: null,
      person_id: 'p1',
      team_id: null,
      resources: ['config'],
      scopes: [{ tags: { env: 'prod' }, agents: ['a1'], names: ['web'] }],
    });
  });
  it('round-trips an entry', () => {
    const entry = { tags: { env: 'prod' }, names: ['a', 'b'] };
    expect(toEntry(fromEntry(entry))).toEqual(entry);
  });
});

it('removes scopes only while more than one remains', () => {
  expect(canRemoveScope(valid())).toBe(false);
  expect(canRemoveScope({ ...valid(), scopes: [emptyScope(), emptyScope()] })).toBe(true);
});

it('counts scopes', () => {
  expect(scopeCount(1)).toBe('1 scope');
  expect(scopeCount(3)).toBe('3 scopes');
});
