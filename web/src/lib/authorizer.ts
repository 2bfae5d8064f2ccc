/** Who may do what in the console: the role matrix of spec part 2 section 6,
 * narrowed or widened by the caller's global permission rules (deny wins). */

export const ROLES = ['admin', 'editor', 'viewer', 'guest', 'commander', 'responder'] as const;
export type Role = (typeof ROLES)[number];

export const RESOURCES = [
  'database',
  'rbac',
  'auth',
  'responder',
  'incident',
  'evidences',
  'comments',
  'canaries',
  'topologies',
  'config_scrapers',
  'identities',
  'connections',
  'kratos',
  'agents',
  'feature_flags',
  'logging_backends',
  'integrations',
  'notifications',
  'playbooks',
  'playbook_runs',
  'permissions',
  'access_scopes',
  'views',
  // Not in the spec's list: the kubeconfig download (a global permission object).
  // admin and editor write, everyone else reads.
  'kubernetes-proxy',
] as const;
export type Resource = (typeof RESOURCES)[number];
export type Access = 'read' | 'write';

const ADMIN_ONLY: readonly Resource[] = ['rbac', 'identities', 'connections'];
const RESPONDER_WRITES: readonly Resource[] = ['responder', 'incident', 'evidences', 'comments'];

export function roleAllows(role: string, resource: Resource, access: Access): boolean {
  switch (role) {
    case 'admin':
      return true;
    case 'editor':
      return !ADMIN_ONLY.includes(resource);
    case 'commander':
    case 'responder':
      return !ADMIN_ONLY.includes(resource) && (access === 'read' || RESPONDER_WRITES.includes(resource));
    case 'viewer':
    case 'guest':
      return !ADMIN_ONLY.includes(resource) && access === 'read';
    default:
      return false;
  }
}

/** A permission rule from whoami; only global rules (no resource_id) apply here. */
export interface PermissionRule {
  object?: string | null;
  action: string;
  deny: boolean;
  resource_id?: string | null;
}

/** Permission objects that stand for a matrix resource (as the server maps them). */
const OBJECTS: Partial<Record<Resource, readonly string[]>> = {
  canaries: ['canaries'],
  topologies: ['topology'],
  database: ['catalog'],
  config_scrapers: ['catalog'],
  playbooks: ['playbooks'],
  playbook_runs: ['playbooks'],
  connections: ['connection'],
  notifications: ['notification'],
  permissions: ['rbac'],
  access_scopes: ['rbac'],
  rbac: ['rbac'],
  identities: ['people'],
  views: ['views'],
  agents: ['agent'],
};

const WRITE_ACTIONS = ['create', 'update', 'delete'];

function ruleMatches(rule: PermissionRule, resource: Resource, access: Access): boolean {
  if (rule.resource_id) return false;
  const object = rule.object;
  if (!object || !(object === '*' || object === resource || (OBJECTS[resource] ?? []).includes(object))) {
    return false;
  }
  const actions = rule.action.split(',').map((a) => a.trim());
  if (actions.includes('*')) return true;
  return access === 'read' ? actions.includes('read') : actions.some((a) => WRITE_ACTIONS.includes(a));
}

export interface Authorizer {
  roles: readonly string[];
  isAdmin: boolean;
  isViewer: boolean;
  can(resource: Resource, access: Access): boolean;
  canAny(resources: readonly Resource[], access: Access): boolean;
}

export function createAuthorizer(roles: readonly string[], rules: readonly PermissionRule[] = []): Authorizer {
  const can = (resource: Resource, access: Access) => {
    const matching = rules.filter((r) => ruleMatches(r, resource, access));
    if (matching.some((r) => r.deny)) return false;
    return roles.some((role) => roleAllows(role, resource, access)) || matching.length > 0;
  };
  return {
    roles,
    isAdmin: roles.includes('admin'),
    isViewer: roles.includes('viewer') || roles.includes('guest'),
    can,
    canAny: (resources, access) => resources.some((r) => can(r, access)),
  };
}
