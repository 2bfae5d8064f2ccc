import { Button, Content } from '@patternfly/react-core';
import PlayIcon from '@patternfly/react-icons/dist/esm/icons/play-icon';
import type { UseMutationResult } from '@tanstack/react-query';
import { useLinkClickHandler } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { AttachEvidenceButton } from '../../incidents/link/AttachEvidenceButton';
import type { CanaryDefinition, CheckSummary } from './useCheckDetailData';

/** Where the canary is edited: its editor, or for a Kubernetes CRD (read-only
 * here) the custom resource to change instead. */
function CanaryLink({ canary }: { canary: CanaryDefinition }) {
  const { authorizer } = useSession();
  const href = `/settings/canaries/${canary.id}`;
  const followLink = useLinkClickHandler<HTMLButtonElement>(href);
  if (canary.source === 'KubernetesCRD') {
    return (
      <Content component="small">
        Managed by Kubernetes CRD: Canary {canary.namespace}/{canary.name}. Edit the custom resource to change it.
      </Content>
    );
  }
  if (!authorizer.can('canaries', 'write')) return null;
  return (
    <Button variant="secondary" component="a" href={href} onClick={followLink}>
      Edit
    </Button>
  );
}

/** Edit (or where the canary comes from), Run Now and Attach as Evidence. */
export function DetailFooter({
  check,
  canary,
  runNow,
}: {
  check: CheckSummary | undefined;
  canary: CanaryDefinition | null | undefined;
  runNow: UseMutationResult<unknown, Error, void>;
}) {
  const { authorizer } = useSession();
  const toast = useToast();
  const canRun = Boolean(check?.id && !check.deleted_at) && authorizer.can('canaries', 'run');
  return (
    <>
      {canary && <CanaryLink canary={canary} />}
      {canRun && (
        <Button
          icon={<PlayIcon />}
          isLoading={runNow.isPending}
          isDisabled={runNow.isPending}
          spinnerAriaValueText="Running"
          onClick={() => runNow.mutate(undefined, { onError: (e) => toast.error(errorMessage(e)) })}
        >
          Run Now
        </Button>
      )}
      {check?.id && <AttachEvidenceButton subject={{ type: 'check', check_id: check.id }} />}
    </>
  );
}
