import ChartLineIcon from '@patternfly/react-icons/dist/esm/icons/chart-line-icon';
import CubeIcon from '@patternfly/react-icons/dist/esm/icons/cube-icon';
import CubesIcon from '@patternfly/react-icons/dist/esm/icons/cubes-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import FolderIcon from '@patternfly/react-icons/dist/esm/icons/folder-icon';
import GlobeIcon from '@patternfly/react-icons/dist/esm/icons/globe-icon';
import HeartbeatIcon from '@patternfly/react-icons/dist/esm/icons/heartbeat-icon';
import NetworkIcon from '@patternfly/react-icons/dist/esm/icons/network-icon';
import TerminalIcon from '@patternfly/react-icons/dist/esm/icons/terminal-icon';
import type { ComponentType } from 'react';

const ICONS: Record<string, ComponentType> = {
  http: GlobeIcon,
  https: GlobeIcon,
  tcp: NetworkIcon,
  dns: NetworkIcon,
  icmp: NetworkIcon,
  exec: TerminalIcon,
  postgres: DatabaseIcon,
  mysql: DatabaseIcon,
  redis: DatabaseIcon,
  sql: DatabaseIcon,
  folder: FolderIcon,
  prometheus: ChartLineIcon,
  kubernetes: CubesIcon,
  component: CubeIcon,
};

/** The icon names a picker offers: each one with a look of its own (not the
 * `https` alias, nor `component`, which is the topology's). */
export const CHECK_ICON_NAMES = Object.keys(ICONS).filter((name) => name !== 'https' && name !== 'component');

/** A check's icon: its own icon name, else its type; a heartbeat for others. */
export function CheckIcon({ icon, type }: { icon?: string | null; type: string }) {
  const Icon = ICONS[(icon || type).toLowerCase()] ?? ICONS[type.toLowerCase()] ?? HeartbeatIcon;
  return <Icon />;
}
