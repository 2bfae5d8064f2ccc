import { Label, type LabelProps } from '@patternfly/react-core';
import { INCIDENT_STATUSES, SEVERITIES, labelOf } from './incidentModel';

const SEVERITY_COLOR: Record<string, LabelProps['color']> = {
  low: 'grey',
  medium: 'yellow',
  high: 'orange',
  blocker: 'red',
  critical: 'red',
};

const STATUS_COLOR: Record<string, LabelProps['color']> = {
  new: 'blue',
  open: 'orange',
  investigating: 'purple',
  mitigated: 'teal',
  resolved: 'green',
  closed: 'grey',
};

export function SeverityLabel({ severity }: { severity: string }) {
  return (
    <Label isCompact color={SEVERITY_COLOR[severity] ?? 'grey'}>
      {labelOf(SEVERITIES, severity)}
    </Label>
  );
}

export function StatusLabel({ status }: { status: string }) {
  return (
    <Label isCompact color={STATUS_COLOR[status] ?? 'grey'}>
      {labelOf(INCIDENT_STATUSES, status)}
    </Label>
  );
}
