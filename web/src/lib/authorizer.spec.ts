import { describe, expect, it } from 'vitest';
import { RESOURCES, createAuthorizer } from './authorizer';

const adminOnly = ['rbac', 'identities', 'connections'];
const responderWrites = ['responder', 'incident', 'evidences', 'comments'];

describe('role matrix', () => {
  it.each(RESOURCES)('%s', (resource) => {
    const restricted = adminOnly.includes(resource);
    expect(createAuthorizer(['admin']).can(resource, 'read')).toBe(true);
    expect(createAuthorizer(['admin']).can(resource, 'write')).toBe(true);
    expect(createAuthorizer(['editor']).can(resource, 'read')).toBe(!restricted);
    expect(createAuthorizer(['editor']).can(resource, 'write')).toBe(!restricted);
    for (const role of ['commander', 'responder']) {
      expect(createAuthorizer([role]).can(resource, 'read')).toBe(!restricted);
      expect(createAuthorizer([role]).can(resource, 'write')).toBe(responderWrites.includes(resource));
    }
    for (const role of ['viewer', 'guest']) {
      expect(createAuthorizer([role]).can(resource, 'read')).toBe(!restricted);
      expect(createAuthorizer([role]).can(resource, 'write')).toBe(false);
    }
    expect(createAuthorizer([]).can(resource, 'read')).toBe(false);
  });

  it('gives several roles the union', () => {
    const both = createAuthorizer(['viewer', 'responder']);
    expect(both.can('incident', 'write')).toBe(true);
    expect(both.can('canaries', 'write')).toBe(false);
    expect(both.canAny(['canaries', 'incident'], 'write')).toBe(true);
    expect(both.isViewer).toBe(true);
    expect(both.isAdmin).toBe(false);
  });
});

it('lets admin and editor, and no one else, write kubernetes-proxy (the kubeconfig download)', () => {
  for (const role of ['admin', 'editor']) expect(createAuthorizer([role]).can('kubernetes-proxy', 'write')).toBe(true);
  for (const role of ['viewer', 'guest', 'commander', 'responder']) {
    expect(createAuthorizer([role]).can('kubernetes-proxy', 'read')).toBe(true);
    expect(createAuthorizer([role]).can('kubernetes-proxy', 'write')).toBe(false);
  }
  const grant = { object: 'kubernetes-proxy', action: 'create', deny: false };
  expect(createAuthorizer(['viewer'], [grant]).can('kubernetes-proxy', 'write')).toBe(true);
});

describe('permission rules', () => {
  it('allow beyond the role, and deny wins', () => {
    const allow = { object: 'playbooks', action: 'read,create', deny: false };
    expect(createAuthorizer(['viewer'], [allow]).can('playbooks', 'write')).toBe(true);
    const deny = { object: 'playbooks', action: 'create', deny: true };
    expect(createAuthorizer(['viewer'], [allow, deny]).can('playbooks', 'write')).toBe(false);
    expect(createAuthorizer(['admin'], [{ object: '*', action: '*', deny: true }]).can('canaries', 'read')).toBe(false);
  });

  it('ignores resource-specific rules', () => {
    const rule = { object: 'playbooks', action: '*', deny: false, resource_id: 'x' };
    expect(createAuthorizer(['viewer'], [rule]).can('playbooks', 'write')).toBe(false);
  });
});
