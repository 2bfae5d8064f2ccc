import { Dropdown, DropdownItem, DropdownList, MenuToggle } from '@patternfly/react-core';
import { useState } from 'react';
import { useSession } from '../../../app/session';
import type { RunnablePlaybook, RunTarget } from '../playbookApi';
import { PlaybookIcon } from '../PlaybookIcon';
import { RunPlaybookModal } from './RunPlaybookModal';
import { useRunnablePlaybooks } from './useRunnablePlaybooks';

/** A Playbooks menu of what can run on a component or check, each opening
 * the Run Playbook dialog on it; for users with write on playbook_runs
 * (spec part 2, 2.9), and only when some playbook can run. */
export function PlaybooksMenu({ target, className }: { target: RunTarget; className?: string }) {
  const { authorizer } = useSession();
  const allowed = authorizer.can('playbook_runs', 'write');
  const playbooks = useRunnablePlaybooks(target, allowed);
  const [isOpen, setOpen] = useState(false);
  const [chosen, setChosen] = useState<RunnablePlaybook>();
  if (!allowed || !playbooks.data?.length) return null;
  return (
    <div className={className}>
      <Dropdown
        isOpen={isOpen}
        onOpenChange={setOpen}
        popperProps={{ appendTo: 'inline' }}
        toggle={(ref) => (
          <MenuToggle ref={ref} variant="secondary" isExpanded={isOpen} onClick={() => setOpen(!isOpen)}>
            Playbooks
          </MenuToggle>
        )}
      >
        <DropdownList>
          {playbooks.data.map((p) => (
            <DropdownItem
              key={p.id}
              icon={<PlaybookIcon icon={p.icon} />}
              description={p.description}
              onClick={() => (setChosen(p), setOpen(false))}
            >
              {p.title}
            </DropdownItem>
          ))}
        </DropdownList>
      </Dropdown>
      {chosen && <RunPlaybookModal playbook={chosen} target={target} onClose={() => setChosen(undefined)} />}
    </div>
  );
}
