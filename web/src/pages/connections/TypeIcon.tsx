import AwsIcon from '@patternfly/react-icons/dist/esm/icons/aws-icon';
import BellIcon from '@patternfly/react-icons/dist/esm/icons/bell-icon';
import ChartLineIcon from '@patternfly/react-icons/dist/esm/icons/chart-line-icon';
import CloudIcon from '@patternfly/react-icons/dist/esm/icons/cloud-icon';
import CodeBranchIcon from '@patternfly/react-icons/dist/esm/icons/code-branch-icon';
import CubeIcon from '@patternfly/react-icons/dist/esm/icons/cube-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import EnvelopeIcon from '@patternfly/react-icons/dist/esm/icons/envelope-icon';
import FolderIcon from '@patternfly/react-icons/dist/esm/icons/folder-icon';
import GithubIcon from '@patternfly/react-icons/dist/esm/icons/github-icon';
import GitlabIcon from '@patternfly/react-icons/dist/esm/icons/gitlab-icon';
import GlobeIcon from '@patternfly/react-icons/dist/esm/icons/globe-icon';
import LinkIcon from '@patternfly/react-icons/dist/esm/icons/link-icon';
import RobotIcon from '@patternfly/react-icons/dist/esm/icons/robot-icon';
import SlackIcon from '@patternfly/react-icons/dist/esm/icons/slack-icon';
import UsersIcon from '@patternfly/react-icons/dist/esm/icons/users-icon';
import WindowsIcon from '@patternfly/react-icons/dist/esm/icons/windows-icon';
import { CONNECTION_TYPES } from '../../api/connections.gen';

type Icon = typeof LinkIcon;

/** Icons of types that have a fitting one; notification types a bell, the rest a link. */
const ICONS: Record<string, Icon> = {
  anthropic: RobotIcon,
  openai: RobotIcon,
  ollama: RobotIcon,
  postgres: DatabaseIcon,
  mysql: DatabaseIcon,
  sql_server: DatabaseIcon,
  mongo: DatabaseIcon,
  redis: DatabaseIcon,
  elasticsearch: DatabaseIcon,
  http: GlobeIcon,
  generic_webhook: GlobeIcon,
  prometheus: ChartLineIcon,
  dynatrace: ChartLineIcon,
  jmeter: ChartLineIcon,
  ldap: UsersIcon,
  windows: WindowsIcon,
  aws: AwsIcon,
  s3: AwsIcon,
  azure: CloudIcon,
  azure_devops: CloudIcon,
  google_cloud: CloudIcon,
  gcs: CloudIcon,
  kubernetes: CubeIcon,
  git: CodeBranchIcon,
  github: GithubIcon,
  gitlab: GitlabIcon,
  folder: FolderIcon,
  sftp: FolderIcon,
  smb: FolderIcon,
  restic: FolderIcon,
  email: EnvelopeIcon,
  slack: SlackIcon,
};

export function typeTitle(id: string): string {
  return CONNECTION_TYPES.find((t) => t.id === id)?.title ?? id;
}

/** A type's icon and title. */
export function TypeLabel({ type }: { type: string }) {
  const notification = CONNECTION_TYPES.find((t) => t.id === type)?.notificationOnly;
  const Icon = ICONS[type] ?? (notification ? BellIcon : LinkIcon);
  return (
    <span className="pf-v6-u-display-inline-flex pf-v6-u-align-items-center pf-v6-u-gap-sm">
      <Icon aria-hidden />
      {typeTitle(type)}
    </span>
  );
}
