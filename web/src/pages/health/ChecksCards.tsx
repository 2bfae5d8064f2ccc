import { Button } from '@patternfly/react-core';
import type { CheckSummary } from './healthFilter';
import { statusOf, StatusDot } from './StatusDot';

/** The card layout: a button per check with its status dot (inert without `onOpen`). */
export function ChecksCards({ checks, onOpen }: { checks: readonly CheckSummary[]; onOpen?(checkId: string): void }) {
  return (
    <ul className="qd-health-cards qd-health-scroll" aria-label="Health checks">
      {checks.map((check) => (
        <li key={check.id}>
          <Button
            variant="secondary"
            size="sm"
            aria-label={`${check.name}: ${statusOf(check.status)[1]}`}
            isAriaDisabled={!onOpen}
            onClick={onOpen && (() => onOpen(check.id))}
          >
            <StatusDot status={check.status} />
            {check.name}
          </Button>
        </li>
      ))}
    </ul>
  );
}
