import CodeBranchIcon from '@patternfly/react-icons/dist/esm/icons/code-branch-icon';
import CubesIcon from '@patternfly/react-icons/dist/esm/icons/cubes-icon';
import GlobeIcon from '@patternfly/react-icons/dist/esm/icons/globe-icon';
import PlayIcon from '@patternfly/react-icons/dist/esm/icons/play-icon';
import TerminalIcon from '@patternfly/react-icons/dist/esm/icons/terminal-icon';
import type { ComponentType } from 'react';
import { DataTable, type Column } from '../../../components/DataTable';
import { useRunnablePlaybooks, type RunnablePlaybook } from './useRunnablePlaybooks';

const ICONS: Record<string, ComponentType> = {
  kubernetes: CubesIcon,
  k8s: CubesIcon,
  git: CodeBranchIcon,
  github: CodeBranchIcon,
  bash: TerminalIcon,
  terminal: TerminalIcon,
  exec: TerminalIcon,
  http: GlobeIcon,
};

/** A playbook's icon by name; a play sign for others. Decorative: the title is beside it. */
function PlaybookIcon({ icon }: { icon?: string | null }) {
  const Icon = ICONS[(icon ?? '').toLowerCase()] ?? PlayIcon;
  return (
    <span aria-hidden="true">
      <Icon />
    </span>
  );
}

const COLUMNS: Column<RunnablePlaybook>[] = [
  {
    title: 'Title',
    cell: (p) => (
      <>
        <PlaybookIcon icon={p.icon} /> {p.title}
      </>
    ),
  },
  { title: 'Name', cell: (p) => (p.namespace ? `${p.namespace}/${p.name}` : p.name) },
  { title: 'Category', cell: (p) => p.category },
  { title: 'Description', cell: (p) => p.description },
];

/** The playbooks that can run on the item. Listing only: running one comes
 * with the playbooks screens, so there is no run button here yet. */
export function PlaybooksTab({ configId }: { configId: string }) {
  const playbooks = useRunnablePlaybooks(configId);
  return (
    <DataTable
      aria-label="Playbooks"
      columns={COLUMNS}
      query={playbooks}
      errorTitle="Failed to load playbooks"
      rowKey={(p) => p.id}
      isPaginated
    />
  );
}
