/** Who may do what in the console, read from whoami's `rights`: the server
 * works them out (role matrix, permission rules, token scope), so the console
 * holds no copy of those rules. */

import type { Schemas } from '../api/client';
import type { Resource } from '../api/rules.gen';

/** What whoami says: for each resource, the actions the caller may do. */
export type Rights = Schemas['WhoamiPayload']['rights'];
export type { Resource };
type Action = Schemas['Action'];
/** `write` is any of create, update and delete; `run` is Run Now (canaries); `update` alone gates Scrape now. */
export type Access = Extract<Action, 'read' | 'run' | 'update'> | 'write';

const WRITE_ACTIONS: readonly Action[] = ['create', 'update', 'delete'];

export interface Authorizer {
  roles: readonly string[];
  isAdmin: boolean;
  isViewer: boolean;
  can(resource: Resource, access: Access): boolean;
  canAny(resources: readonly Resource[], access: Access): boolean;
}

export function createAuthorizer(roles: readonly string[], rights: Rights): Authorizer {
  const granted = new Map<string, readonly Action[]>(Object.entries(rights));
  const can = (resource: Resource, access: Access) => {
    const actions = granted.get(resource) ?? [];
    return access === 'write' ? actions.some((a) => WRITE_ACTIONS.includes(a)) : actions.includes(access);
  };
  return {
    roles,
    isAdmin: roles.includes('admin'),
    isViewer: roles.includes('viewer') || roles.includes('guest'),
    can,
    canAny: (resources, access) => resources.some((r) => can(r, access)),
  };
}
