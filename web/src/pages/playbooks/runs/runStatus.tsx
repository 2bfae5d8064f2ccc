import { Label, type LabelProps } from '@patternfly/react-core';
import { formatDuration } from '../../jobs/jobHistory';

/** Run statuses (issue 20), in the order of a run's life. */
export const RUN_STATUSES = [
  'pending_approval',
  'scheduled',
  'running',
  'waiting',
  'completed',
  'failed',
  'cancelled',
  'timed_out',
] as const;

/** How often pages showing unfinished runs ask again. */
export const LIVE_MS = 2000;

const FINISHED = new Set(['completed', 'failed', 'cancelled', 'timed_out', 'skipped']);

/** Whether a run or action has stopped changing. */
export const isFinished = (status: string) => FINISHED.has(status);

const COLORS: Record<string, LabelProps['color']> = {
  completed: 'green',
  failed: 'red',
  timed_out: 'red',
  cancelled: 'grey',
  skipped: 'grey',
  running: 'blue',
  pending_approval: 'orange',
  waiting: 'purple',
  waiting_children: 'purple',
  sleeping: 'purple',
  scheduled: 'teal',
};

export const statusText = (status: string) => status.replaceAll('_', ' ');

export function StatusLabel({ status }: { status: string }) {
  return (
    <Label isCompact color={COLORS[status] ?? 'grey'}>
      {statusText(status)}
    </Label>
  );
}

/** From start to end, or to now while it runs; empty before it starts. */
export function elapsed(start: string | null | undefined, end: string | null | undefined, now = Date.now()): string {
  if (!start) return '';
  const to = end ? new Date(end).getTime() : now;
  return formatDuration(Math.max(0, to - new Date(start).getTime()));
}
