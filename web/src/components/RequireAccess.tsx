import type { ReactNode } from 'react';
import { useSession } from '../app/session';
import type { Access, Resource } from '../lib/authorizer';
import { Unauthorized } from './Unauthorized';

/** Renders children when the user has `access` (read unless told) on
 * `resource` and `feature` is on; the Unauthorized page otherwise. */
export function RequireAccess({
  resource,
  access = 'read',
  feature,
  children,
}: {
  resource: Resource;
  access?: Access;
  feature?: string;
  children: ReactNode;
}) {
  const { authorizer, isEnabled } = useSession();
  if ((feature && !isEnabled(feature)) || !authorizer.can(resource, access)) return <Unauthorized />;
  return children;
}
