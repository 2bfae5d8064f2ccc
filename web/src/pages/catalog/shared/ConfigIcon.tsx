import CloudIcon from '@patternfly/react-icons/dist/esm/icons/cloud-icon';
import CodeBranchIcon from '@patternfly/react-icons/dist/esm/icons/code-branch-icon';
import CubeIcon from '@patternfly/react-icons/dist/esm/icons/cube-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import FileIcon from '@patternfly/react-icons/dist/esm/icons/file-icon';
import ServerIcon from '@patternfly/react-icons/dist/esm/icons/server-icon';
import type { ComponentType } from 'react';

/** Icons by the type's prefix (`Kubernetes::Pod` -> Kubernetes); a type with
 * no icon of its own gets the generic file. */
const BY_PREFIX: [string, ComponentType][] = [
  ['Kubernetes', CubeIcon],
  ['AWS', CloudIcon],
  ['Azure', CloudIcon],
  ['GCP', CloudIcon],
  ['Git', CodeBranchIcon],
  ['GitHub', CodeBranchIcon],
  ['SQL', DatabaseIcon],
  ['Postgres', DatabaseIcon],
  ['MySQL', DatabaseIcon],
  ['Host', ServerIcon],
];

/** The icon of a config type; decorative, the type's name is shown beside it. */
export function ConfigIcon({ type }: { type: string | null | undefined }) {
  const prefix = (type ?? '').split('::')[0] ?? '';
  const Icon = BY_PREFIX.find(([p]) => p === prefix)?.[1] ?? FileIcon;
  return (
    <span className="qd-config-icon" aria-hidden="true">
      <Icon />
    </span>
  );
}
