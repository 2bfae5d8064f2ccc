/** Query keys shared by more than one view; writes invalidate by prefix. */
export const keys = {
  whoami: ['whoami'] as const,
  about: ['about'] as const,
  properties: ['db', 'properties'] as const,
  accessScopes: ['db', 'access_scopes'] as const,
  permissions: ['db', 'permissions'] as const,
  teams: ['db', 'teams'] as const,
  teamMembers: (teamId: string) => ['db', 'team_members', teamId] as const,
  people: ['db', 'people'] as const,
  agents: ['db', 'agents'] as const,
  peopleRoles: ['people_roles'] as const,
  tokens: ['tokens'] as const,
  integrations: ['db', 'integrations_with_status'] as const,
  integration: (table: string, id: string) => ['db', table, id] as const,
  gitopsOptions: ['integrations', 'options'] as const,
};
