import BellIcon from '@patternfly/react-icons/dist/esm/icons/bell-icon';
import BugIcon from '@patternfly/react-icons/dist/esm/icons/bug-icon';
import CloudIcon from '@patternfly/react-icons/dist/esm/icons/cloud-icon';
import CodeIcon from '@patternfly/react-icons/dist/esm/icons/code-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import HeadsetIcon from '@patternfly/react-icons/dist/esm/icons/headset-icon';
import NetworkIcon from '@patternfly/react-icons/dist/esm/icons/network-icon';
import ServerIcon from '@patternfly/react-icons/dist/esm/icons/server-icon';
import ShieldAltIcon from '@patternfly/react-icons/dist/esm/icons/shield-alt-icon';
import UserIcon from '@patternfly/react-icons/dist/esm/icons/user-icon';
import UsersIcon from '@patternfly/react-icons/dist/esm/icons/users-icon';
import WrenchIcon from '@patternfly/react-icons/dist/esm/icons/wrench-icon';
import type { ComponentType } from 'react';
import { IconPicker, type IconChoice } from '../../components/resource-editor/IconPicker';

/** The icon of a new team. */
export const DEFAULT_TEAM_ICON = 'group';

const ICONS: [string, ComponentType][] = [
  [DEFAULT_TEAM_ICON, UsersIcon],
  ['user', UserIcon],
  ['code', CodeIcon],
  ['server', ServerIcon],
  ['database', DatabaseIcon],
  ['cloud', CloudIcon],
  ['network', NetworkIcon],
  ['security', ShieldAltIcon],
  ['support', HeadsetIcon],
  ['bug', BugIcon],
  ['alert', BellIcon],
  ['tools', WrenchIcon],
];

/** A name the picker does not offer looks like a group. */
const renderOther = () => <UsersIcon />;

const CHOICES: readonly IconChoice[] = ICONS.map(([name, Icon]) => ({ name, icon: <Icon /> }));

/** The Icon field of a team: a choice of icons, named 'Icon'. */
export function TeamIconPicker(props: { id: string; value: string; onChange(value: string): void; isDisabled?: boolean }) {
  return <IconPicker {...props} choices={CHOICES} render={renderOther} />;
}
