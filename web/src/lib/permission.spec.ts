import { describe, expect, it } from 'vitest';
import {
  REQUIRED,
  actionsFor,
  emptyPermission,
  fromPermissionRow,
  toPermissionRow,
  validatePermission,
  withResourceKind,
  withSubjectKind,
} from './permission';

describe('clearing rules', () => {
  it('switching the subject kind clears the subject', () => {
    const form = { ...emptyPermission(), subjectId: 'p1', object: 'catalog' };
    expect(withSubjectKind(form, 'team')).toMatchObject({ subjectKind: 'team', subjectId: '', object: 'catalog' });
    expect(withSubjectKind(form, 'person')).toBe(form);
  });
  it('switching the resource kind clears the resource', () => {
    const form = { ...emptyPermission(), subjectId: 'p1', object: 'catalog' };
    expect(withResourceKind(form, 'playbook')).toMatchObject({ resourceKind: 'playbook', object: '', resourceId: '', subjectId: 'p1' });
  });
});

it('requires subject, resource and action', () => {
  expect(validatePermission({ ...emptyPermission(), action: '' })).toEqual({ subject: REQUIRED, resource: REQUIRED, action: REQUIRED });
  expect(validatePermission({ ...emptyPermission(), subjectId: 'p1', object: 'catalog' })).toEqual({});
  expect(validatePermission({ ...emptyPermission(), subjectId: 'p1', resourceKind: 'playbook' }).resource).toBe(REQUIRED);
});

it('offers playbook actions for playbook resources', () => {
  expect(actionsFor('playbook', '')).toContain('playbook:run');
  expect(actionsFor('global', 'playbooks')).toContain('playbook:approve');
  expect(actionsFor('global', 'catalog')).not.toContain('playbook:run');
});

describe('rows', () => {
  it('writes a role subject as a group and one resource column', () => {
    const row = toPermissionRow({
      ...emptyPermission(),
      subjectKind: 'role',
      subjectId: 'viewer',
      resourceKind: 'playbook',
      resourceId: 'pb1',
      action: 'playbook:run',
    });
    expect(row).toMatchObject({
      subject_type: 'group',
      subject: 'viewer',
      person_id: null,
      object: null,
      playbook_id: 'pb1',
      action: 'playbook:run',
    });
  });
  it('round-trips a person with a global object', () => {
    const form = { ...emptyPermission(), subjectId: 'p1', object: 'catalog', deny: true, description: 'x' };
    expect(fromPermissionRow(toPermissionRow(form))).toEqual(form);
  });
});
