import { Button, type ButtonProps } from '@patternfly/react-core';
import PlayIcon from '@patternfly/react-icons/dist/esm/icons/play-icon';
import { useState } from 'react';
import { useSession } from '../../../app/session';
import type { RunTarget } from '../playbookApi';
import { RunPlaybookModal, type PlaybookToRun } from './RunPlaybookModal';

/** Run, opening the Run Playbook dialog; only for users with write on playbook_runs (spec part 2, 2.9). */
export function RunPlaybookButton({
  playbook,
  target,
  variant = 'secondary',
}: {
  playbook: PlaybookToRun;
  target?: RunTarget;
  variant?: ButtonProps['variant'];
}) {
  const { authorizer } = useSession();
  const [open, setOpen] = useState(false);
  if (!authorizer.can('playbook_runs', 'write')) return null;
  return (
    <>
      <Button variant={variant} size="sm" icon={<PlayIcon />} aria-label={`Run ${playbook.title}`} onClick={() => setOpen(true)}>
        Run
      </Button>
      {open && <RunPlaybookModal playbook={playbook} target={target} onClose={() => setOpen(false)} />}
    </>
  );
}
