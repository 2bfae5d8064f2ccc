import CloudIcon from '@patternfly/react-icons/dist/esm/icons/cloud-icon';
import CodeBranchIcon from '@patternfly/react-icons/dist/esm/icons/code-branch-icon';
import CubeIcon from '@patternfly/react-icons/dist/esm/icons/cube-icon';
import CubesIcon from '@patternfly/react-icons/dist/esm/icons/cubes-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import GlobeIcon from '@patternfly/react-icons/dist/esm/icons/globe-icon';
import NetworkIcon from '@patternfly/react-icons/dist/esm/icons/network-icon';
import ServerIcon from '@patternfly/react-icons/dist/esm/icons/server-icon';
import type { ComponentType } from 'react';

/** Icons by a word the component's icon or type starts with (lower case):
 * `kubernetes`, `Kubernetes::Pod`, `postgres`... Anything else is the
 * generic component icon. */
const BY_WORD: [string, ComponentType][] = [
  ['kubernetes', CubeIcon],
  ['k8s', CubeIcon],
  ['pod', CubeIcon],
  ['aws', CloudIcon],
  ['azure', CloudIcon],
  ['gcp', CloudIcon],
  ['cloud', CloudIcon],
  ['git', CodeBranchIcon],
  ['sql', DatabaseIcon],
  ['postgres', DatabaseIcon],
  ['mysql', DatabaseIcon],
  ['database', DatabaseIcon],
  ['db', DatabaseIcon],
  ['redis', DatabaseIcon],
  ['http', GlobeIcon],
  ['website', GlobeIcon],
  ['dns', NetworkIcon],
  ['network', NetworkIcon],
  ['host', ServerIcon],
  ['node', ServerIcon],
  ['server', ServerIcon],
];

/** A component's icon; decorative, its name is beside it. */
export function ComponentIcon({ icon, type }: { icon: string | null | undefined; type: string | null | undefined }) {
  const words = [icon, type].map((w) => (w ?? '').toLowerCase()).filter(Boolean);
  const Icon = BY_WORD.find(([word]) => words.some((w) => w.startsWith(word)))?.[1] ?? CubesIcon;
  return (
    <span className="qd-topology-icon" aria-hidden="true">
      <Icon />
    </span>
  );
}
