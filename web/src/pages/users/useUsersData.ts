import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import type { Role } from '../../api/rules.gen';
import { keys } from '../../app/queryKeys';

/** The Users screen: people with their roles, invitations and changes. */
export function useUsersData() {
  const queryClient = useQueryClient();
  const invalidate = () => queryClient.invalidateQueries({ queryKey: keys.peopleRoles });
  const list = useQuery({ queryKey: keys.peopleRoles, queryFn: () => unwrap(api.GET('/api/people_roles')) });
  const invite = useMutation({
    mutationFn: (body: Schemas['InviteUser']) => unwrap(api.POST('/api/auth/invite_user', { body })),
    onSuccess: invalidate,
  });
  const setRoles = useMutation({
    mutationFn: ({ id, roles }: { id: string; roles: Role[] }) => unwrap(api.POST('/api/people/update', { body: { id, roles } })),
    onSuccess: invalidate,
  });
  const remove = useMutation({
    mutationFn: (id: string) => unwrap(api.DELETE('/api/people/{id}', { params: { path: { id } } })),
    onSuccess: invalidate,
  });
  const resetLink = useMutation({
    mutationFn: (id: string) => unwrap(api.POST('/api/people/{id}/password_reset', { params: { path: { id } } })),
  });
  return { list, invite, setRoles, remove, resetLink };
}
