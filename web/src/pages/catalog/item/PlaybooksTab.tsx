import { DataTable, type Column } from '../../../components/DataTable';
import { PlaybookIcon } from '../../playbooks/PlaybookIcon';
import type { RunnablePlaybook } from '../../playbooks/playbookApi';
import { RunPlaybookButton } from '../../playbooks/run/RunPlaybookButton';
import { useRunnablePlaybooks } from '../../playbooks/run/useRunnablePlaybooks';

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

/** The playbooks that can run on the item, each with Run (the Run Playbook dialog on this item). */
export function PlaybooksTab({ configId }: { configId: string }) {
  const playbooks = useRunnablePlaybooks({ config_id: configId });
  return (
    <DataTable
      aria-label="Playbooks"
      columns={COLUMNS}
      query={playbooks}
      errorTitle="Failed to load playbooks"
      rowKey={(p) => p.id}
      isPaginated
      actions={(p) => <RunPlaybookButton playbook={p} target={{ config_id: configId }} />}
    />
  );
}
