import { Button, type ButtonProps } from '@patternfly/react-core';
import { lazy, Suspense, useState } from 'react';
import { useSession } from '../../../app/session';
import type { EvidenceSubject } from './linkForm';

const IncidentLinkModal = lazy(() => import('./IncidentLinkModal').then((m) => ({ default: m.IncidentLinkModal })));

/** 'Attach as Evidence' for a check, config, change or component: hidden when
 * the incidents feature is off or without write on incidents. */
export function AttachEvidenceButton({ subject, variant = 'secondary' }: { subject: EvidenceSubject; variant?: ButtonProps['variant'] }) {
  const { authorizer, isEnabled } = useSession();
  const [isOpen, setOpen] = useState(false);
  if (!isEnabled('incidents') || !authorizer.can('incident', 'write')) return null;
  return (
    <>
      <Button variant={variant} onClick={() => setOpen(true)}>
        Attach as Evidence
      </Button>
      {isOpen && (
        <Suspense fallback={null}>
          <IncidentLinkModal subject={subject} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
