import { MenuToggle, Select, SelectList, SelectOption } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import { selectionText } from '../lib/selection';

/** Menus render next to their toggle: an open modal hides everything else
 * appended to the body from assistive technology whenever it re-renders. */
const INLINE = { appendTo: 'inline' } as const;

export interface Option {
  value: string;
  label: string;
  description?: string;
  icon?: ReactNode;
}

/** What both kinds take of their toggle; `label` is its accessible name. */
interface FieldProps {
  id?: string;
  label: string;
  isDisabled?: boolean;
  isInvalid?: boolean;
}

interface SingleProps extends FieldProps {
  options: readonly Option[];
  value: string;
  onChange(value: string): void;
  placeholder?: string;
}

interface ShellProps extends FieldProps {
  selected: string | readonly string[];
  /** The toggle's text, and whether it is the placeholder. */
  text: string;
  icon?: ReactNode;
  isPlaceholder: boolean;
  onSelect(value: string, close: () => void): void;
  /** The options. */
  children: ReactNode;
}

/** The select both kinds share: a full-width toggle named `label` and a scrolling list of options. */
function SelectShell({ id, label, isDisabled, isInvalid, selected, text, icon, isPlaceholder, onSelect, children }: ShellProps) {
  const [isOpen, setOpen] = useState(false);
  return (
    <Select
      isOpen={isOpen}
      selected={selected}
      onOpenChange={setOpen}
      onSelect={(_e, v) => onSelect(String(v), () => setOpen(false))}
      isScrollable
      maxMenuHeight="20rem"
      popperProps={INLINE}
      toggle={(ref) => (
        <MenuToggle
          ref={ref}
          id={id}
          aria-label={label}
          isFullWidth
          isDisabled={isDisabled}
          isExpanded={isOpen}
          isPlaceholder={isPlaceholder}
          icon={icon}
          status={isInvalid ? 'danger' : undefined}
          onClick={() => setOpen(!isOpen)}
        >
          {text}
        </MenuToggle>
      )}
    >
      <SelectList aria-label={label}>{children}</SelectList>
    </Select>
  );
}

/** A single-choice select; `label` is the accessible name of its toggle. */
export function SimpleSelect({ options, value, onChange, placeholder = 'Select', ...field }: SingleProps) {
  const chosen = options.find((o) => o.value === value);
  return (
    <SelectShell
      {...field}
      selected={value}
      text={chosen?.label ?? placeholder}
      icon={chosen?.icon}
      isPlaceholder={!chosen}
      onSelect={(v, close) => {
        onChange(v);
        close();
      }}
    >
      {options.map((o) => (
        <SelectOption key={o.value} value={o.value} description={o.description} icon={o.icon}>
          {o.label}
        </SelectOption>
      ))}
    </SelectShell>
  );
}

interface MultiProps extends FieldProps {
  options: readonly Option[];
  values: readonly string[];
  onToggle(value: string): void;
  placeholder?: string;
}

/** Several choices with checkboxes; four or more collapse to a count. */
export function MultiSelect({ options, values, onToggle, placeholder = 'Select', ...field }: MultiProps) {
  const chosen = options.filter((o) => values.includes(o.value));
  return (
    <SelectShell
      {...field}
      selected={values}
      text={selectionText(
        chosen.map((o) => o.label),
        placeholder,
      )}
      isPlaceholder={chosen.length === 0}
      onSelect={(v) => onToggle(v)}
    >
      {options.map((o) => (
        <SelectOption key={o.value} value={o.value} hasCheckbox isSelected={values.includes(o.value)}>
          {o.label}
        </SelectOption>
      ))}
    </SelectShell>
  );
}
