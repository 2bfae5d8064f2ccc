import AmbulanceIcon from '@patternfly/react-icons/dist/esm/icons/ambulance-icon';
import CatalogIcon from '@patternfly/react-icons/dist/esm/icons/catalog-icon';
import FlagIcon from '@patternfly/react-icons/dist/esm/icons/flag-icon';
import HeartbeatIcon from '@patternfly/react-icons/dist/esm/icons/heartbeat-icon';
import HistoryIcon from '@patternfly/react-icons/dist/esm/icons/history-icon';
import KeyIcon from '@patternfly/react-icons/dist/esm/icons/key-icon';
import LinkIcon from '@patternfly/react-icons/dist/esm/icons/link-icon';
import BellIcon from '@patternfly/react-icons/dist/esm/icons/bell-icon';
import ListIcon from '@patternfly/react-icons/dist/esm/icons/list-icon';
import LockIcon from '@patternfly/react-icons/dist/esm/icons/lock-icon';
import PlayIcon from '@patternfly/react-icons/dist/esm/icons/play-icon';
import PuzzlePieceIcon from '@patternfly/react-icons/dist/esm/icons/puzzle-piece-icon';
import TopologyIcon from '@patternfly/react-icons/dist/esm/icons/topology-icon';
import UserIcon from '@patternfly/react-icons/dist/esm/icons/user-icon';
import UserShieldIcon from '@patternfly/react-icons/dist/esm/icons/user-shield-icon';
import UsersIcon from '@patternfly/react-icons/dist/esm/icons/users-icon';
import type { ReactNode } from 'react';
import type { Resource } from '../lib/authorizer';
import type { Session } from './session';

/** A sidebar entry: shown when its feature is enabled and its resource readable. */
export interface NavItem {
  name: string;
  href: string;
  icon: ReactNode;
  featureName?: string;
  resourceName: Resource;
  /** Shown to admins only (the screen's calls answer 403 to anyone else). */
  adminOnly?: boolean;
}

/** Main entries whose screens exist. */
export const MAIN_NAV: NavItem[] = [
  { name: 'Dashboard', href: '/topology', icon: <TopologyIcon />, featureName: 'topology', resourceName: 'topologies' },
  { name: 'Health', href: '/health', icon: <HeartbeatIcon />, featureName: 'health', resourceName: 'canaries' },
  { name: 'Incidents', href: '/incidents', icon: <AmbulanceIcon />, featureName: 'incidents', resourceName: 'incident' },
  { name: 'Catalog', href: '/catalog', icon: <CatalogIcon />, featureName: 'config', resourceName: 'database' },
  { name: 'Playbooks', href: '/playbooks', icon: <PlayIcon />, featureName: 'playbooks', resourceName: 'playbooks' },
];

/** Settings entries whose screens exist, sorted by name. */
export const SETTINGS_NAV: NavItem[] = (
  [
    { name: 'Access Scopes', href: '/settings/access-scopes', icon: <LockIcon />, resourceName: 'access_scopes' },
    {
      name: 'Connections',
      href: '/settings/connections',
      icon: <LinkIcon />,
      featureName: 'settings.connections',
      resourceName: 'connections',
    },
    {
      name: 'Feature Flags',
      href: '/settings/feature-flags',
      icon: <FlagIcon />,
      featureName: 'settings.feature_flags',
      resourceName: 'feature_flags',
    },
    {
      name: 'Health Checks',
      href: '/settings/canaries',
      icon: <HeartbeatIcon />,
      featureName: 'settings.health',
      resourceName: 'canaries',
    },
    {
      name: 'Integrations',
      href: '/settings/integrations',
      icon: <PuzzlePieceIcon />,
      featureName: 'settings.integrations',
      resourceName: 'integrations',
    },
    {
      name: 'Permissions',
      href: '/settings/permissions',
      icon: <UserShieldIcon />,
      featureName: 'settings.permissions',
      resourceName: 'permissions',
    },
    {
      name: 'Job History',
      href: '/settings/jobs',
      icon: <HistoryIcon />,
      featureName: 'settings.job_history',
      resourceName: 'database',
    },
    {
      name: 'Notifications',
      href: '/notifications',
      icon: <BellIcon />,
      featureName: 'settings.notifications',
      resourceName: 'notifications',
    },
    { name: 'Rules', href: '/settings/rules', icon: <ListIcon />, featureName: 'settings.rules', resourceName: 'incident' },
    { name: 'Single Sign-On', href: '/settings/single-sign-on', icon: <KeyIcon />, resourceName: 'identities', adminOnly: true },
    { name: 'Teams', href: '/settings/teams', icon: <UsersIcon />, featureName: 'settings.teams', resourceName: 'database' },
    { name: 'Tokens', href: '/settings/tokens', icon: <KeyIcon />, resourceName: 'auth' },
    { name: 'Topology', href: '/settings/topology', icon: <TopologyIcon />, featureName: 'settings.topology', resourceName: 'topologies' },
    { name: 'Users', href: '/settings/users', icon: <UserIcon />, featureName: 'settings.users', resourceName: 'identities' },
  ] satisfies NavItem[]
).sort((a, b) => a.name.localeCompare(b.name));

export function isVisible(item: NavItem, session: Session): boolean {
  return (
    (!item.featureName || session.isEnabled(item.featureName)) &&
    session.authorizer.can(item.resourceName, 'read') &&
    (!item.adminOnly || session.authorizer.isAdmin)
  );
}

/** Main entries for this user. */
export function visibleMain(session: Session): NavItem[] {
  return MAIN_NAV.filter((item) => isVisible(item, session));
}

/** Settings entries for this user; none for viewers and guests. */
export function visibleSettings(session: Session): NavItem[] {
  const { authorizer } = session;
  const hasWriterRole = authorizer.roles.some((r) => r !== 'viewer' && r !== 'guest');
  if (authorizer.isViewer && !hasWriterRole) return [];
  return SETTINGS_NAV.filter((item) => isVisible(item, session));
}
