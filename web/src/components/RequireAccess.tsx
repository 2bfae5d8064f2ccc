import type { ReactNode } from 'react';
import { useSession } from '../app/session';
import type { Resource } from '../lib/authorizer';
import { Unauthorized } from './Unauthorized';

/** Renders children when the user may read `resource` and `feature` is on. */
export function RequireAccess({ resource, feature, children }: { resource: Resource; feature?: string; children: ReactNode }) {
  const { authorizer, isEnabled } = useSession();
  if ((feature && !isEnabled(feature)) || !authorizer.can(resource, 'read')) return <Unauthorized />;
  return children;
}
