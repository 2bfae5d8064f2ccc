import { ToolbarItem } from '@patternfly/react-core';
import type { ReactNode } from 'react';
import { toggled } from '../lib/selection';
import { MultiSelect, type Option } from './Selects';

/** A toolbar filter: its label, then the control. With `isLabelHidden` the
 * label is for screen readers only (the control shows it as its placeholder). */
export function FilterItem({ label, isLabelHidden, children }: { label: string; isLabelHidden?: boolean; children: ReactNode }) {
  return isLabelHidden ? (
    <ToolbarItem>
      <span className="pf-v6-u-screen-reader">{label}</span>
      {children}
    </ToolbarItem>
  ) : (
    <>
      <ToolbarItem variant="label">{label}</ToolbarItem>
      <ToolbarItem>{children}</ToolbarItem>
    </>
  );
}

export interface MultiSelectFilterProps {
  label: string;
  isLabelHidden?: boolean;
  options: readonly Option[];
  values: readonly string[];
  onChange(values: string[]): void;
}

/** A filter of several values. Beside a visible label the select is named
 * "Filter by <label>" and reads "All" when nothing is chosen; with a hidden
 * label the label is its name and placeholder. */
export function MultiSelectFilter({ label, isLabelHidden, options, values, onChange }: MultiSelectFilterProps) {
  return (
    <FilterItem label={label} isLabelHidden={isLabelHidden}>
      <MultiSelect
        label={isLabelHidden ? label : `Filter by ${label.toLowerCase()}`}
        placeholder={isLabelHidden ? label : 'All'}
        options={options}
        values={values}
        onToggle={(v) => onChange(toggled(values, v))}
      />
    </FilterItem>
  );
}
