import CodeBranchIcon from '@patternfly/react-icons/dist/esm/icons/code-branch-icon';
import CubesIcon from '@patternfly/react-icons/dist/esm/icons/cubes-icon';
import DatabaseIcon from '@patternfly/react-icons/dist/esm/icons/database-icon';
import GlobeIcon from '@patternfly/react-icons/dist/esm/icons/globe-icon';
import PlayIcon from '@patternfly/react-icons/dist/esm/icons/play-icon';
import TerminalIcon from '@patternfly/react-icons/dist/esm/icons/terminal-icon';
import type { ComponentType } from 'react';

const ICONS: Record<string, ComponentType> = {
  kubernetes: CubesIcon,
  k8s: CubesIcon,
  git: CodeBranchIcon,
  github: CodeBranchIcon,
  bash: TerminalIcon,
  terminal: TerminalIcon,
  exec: TerminalIcon,
  http: GlobeIcon,
  postgres: DatabaseIcon,
  sql: DatabaseIcon,
  database: DatabaseIcon,
};

/** A playbook's icon by name; a play sign for others. Decorative: the title is beside it. */
export function PlaybookIcon({ icon }: { icon?: string | null }) {
  const Icon = ICONS[(icon ?? '').toLowerCase()] ?? PlayIcon;
  return (
    <span aria-hidden="true">
      <Icon />
    </span>
  );
}
