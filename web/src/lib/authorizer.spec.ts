import { describe, expect, it } from 'vitest';
import { createAuthorizer, type Resource, type Rights } from './authorizer';

describe('rights from whoami', () => {
  const authorizer = createAuthorizer(['responder'], {
    canaries: ['read'],
    incident: ['read', 'update'],
    comments: ['create'],
    evidences: ['delete'],
    connections: [],
  });

  it('read needs read', () => {
    expect(authorizer.can('canaries', 'read')).toBe(true);
    expect(authorizer.can('comments', 'read')).toBe(false);
    expect(authorizer.can('connections', 'read')).toBe(false);
  });

  it('write is any of create, update and delete', () => {
    expect(authorizer.can('canaries', 'write')).toBe(false);
    expect(authorizer.can('incident', 'write')).toBe(true);
    expect(authorizer.can('comments', 'write')).toBe(true);
    expect(authorizer.can('evidences', 'write')).toBe(true);
  });

  it('a resource the server did not list allows nothing', () => {
    expect(authorizer.can('playbooks', 'read')).toBe(false);
    // A name from outside the generated union (e.g. an older server's), not an inherited key.
    expect(authorizer.can('constructor' as Resource, 'read')).toBe(false);
  });

  it('canAny is true when one of the resources allows it', () => {
    expect(authorizer.canAny(['canaries', 'incident'], 'write')).toBe(true);
    expect(authorizer.canAny(['canaries', 'connections'], 'write')).toBe(false);
    expect(authorizer.canAny([], 'read')).toBe(false);
  });
});

describe('Run Now', () => {
  it('follows the run right on canaries, not the roles', () => {
    const writer: Rights[string] = ['read', 'create', 'update', 'delete'];
    expect(createAuthorizer(['admin'], { canaries: [...writer, 'run'] }).can('canaries', 'run')).toBe(true);
    // An editor whose token (or a deny rule) takes Run Now away.
    expect(createAuthorizer(['editor'], { canaries: writer }).can('canaries', 'run')).toBe(false);
    // A viewer granted Run Now by a permission rule.
    expect(createAuthorizer(['viewer'], { canaries: ['read', 'run'] }).can('canaries', 'run')).toBe(true);
  });

  it('is not write', () => {
    const runner = createAuthorizer(['responder'], { canaries: ['read', 'run'] });
    expect(runner.can('canaries', 'write')).toBe(false);
    expect(createAuthorizer(['editor'], { canaries: ['update'] }).can('canaries', 'run')).toBe(false);
  });
});

describe('roles', () => {
  it('isAdmin when the roles include admin', () => {
    expect(createAuthorizer(['viewer', 'admin'], {}).isAdmin).toBe(true);
    expect(createAuthorizer(['editor'], {}).isAdmin).toBe(false);
  });

  it('isViewer when the roles include viewer or guest', () => {
    expect(createAuthorizer(['viewer'], {}).isViewer).toBe(true);
    expect(createAuthorizer(['guest'], {}).isViewer).toBe(true);
    expect(createAuthorizer(['responder'], {}).isViewer).toBe(false);
  });

  it('grant nothing by themselves: an admin with no rights listed can do nothing', () => {
    const admin = createAuthorizer(['admin'], {});
    expect(admin.can('canaries', 'read')).toBe(false);
    expect(admin.can('canaries', 'run')).toBe(false);
  });
});
