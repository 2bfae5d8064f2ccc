import { Dropdown, DropdownItem, DropdownList, Label, MenuItemAction, MenuToggle } from '@patternfly/react-core';
import BanIcon from '@patternfly/react-icons/dist/esm/icons/ban-icon';
import CheckIcon from '@patternfly/react-icons/dist/esm/icons/check-icon';
import { useState } from 'react';
import { jobStatusColor } from '../../lib/integrations';
import { JOB_STATUSES, type JobStatus, type StatusFilter as Filter } from './jobFilters';

const STATE_TEXT = { 1: 'Included', [-1]: 'Excluded' } as const;

/** 'FAILED, not SUCCESS', or 'All'. */
function summary(filter: Filter): string {
  const parts = JOB_STATUSES.filter((s) => filter[s]).map((s) => (filter[s] === 1 ? s : `not ${s}`));
  return parts.length === 0 ? 'All' : parts.join(', ');
}

/** Statuses to include or exclude: choosing a status includes it (again:
 * not), its exclude action excludes it. */
export function StatusFilter({ value, onChange }: { value: Filter; onChange(filter: Filter): void }) {
  const [isOpen, setOpen] = useState(false);
  const toggle = (status: JobStatus, state: 1 | -1) => {
    const { [status]: current, ...others } = value;
    onChange(current === state ? others : { ...others, [status]: state });
  };
  const activeStyle = (status: JobStatus, state: 1 | -1) =>
    value[status] === state
      ? { color: `var(--pf-t--global--icon--color--status--${state === 1 ? 'success' : 'danger'}--default)` }
      : undefined;

  return (
    <Dropdown
      isOpen={isOpen}
      onOpenChange={setOpen}
      onSelect={(_e, status) => toggle(status as JobStatus, 1)}
      popperProps={{ appendTo: 'inline' }}
      toggle={(ref) => (
        <MenuToggle ref={ref} aria-label="Status" isExpanded={isOpen} onClick={() => setOpen(!isOpen)}>
          {summary(value)}
        </MenuToggle>
      )}
    >
      <DropdownList aria-label="Status">
        {JOB_STATUSES.map((status) => {
          const state = value[status];
          return (
            <DropdownItem
              key={status}
              value={status}
              description={state ? STATE_TEXT[state] : undefined}
              aria-label={`Include ${status}`}
              actions={
                <MenuItemAction
                  icon={<BanIcon style={activeStyle(status, -1)} />}
                  aria-label={`Exclude ${status}`}
                  onClick={() => toggle(status, -1)}
                />
              }
              icon={<CheckIcon style={activeStyle(status, 1) ?? { visibility: 'hidden' }} />}
            >
              <Label isCompact color={jobStatusColor(status)}>
                {status}
              </Label>
            </DropdownItem>
          );
        })}
      </DropdownList>
    </Dropdown>
  );
}
