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

interface SingleProps {
  id?: string;
  label: string;
  options: readonly Option[];
  value: string;
  onChange(value: string): void;
  placeholder?: string;
  isDisabled?: boolean;
  isInvalid?: boolean;
}

/** A single-choice select; `label` is the accessible name of its toggle. */
export function SimpleSelect({ id, label, options, value, onChange, placeholder = 'Select', isDisabled, isInvalid }: SingleProps) {
  const [isOpen, setOpen] = useState(false);
  const chosen = options.find((o) => o.value === value);
  return (
    <Select
      isOpen={isOpen}
      selected={value}
      onOpenChange={setOpen}
      onSelect={(_e, v) => {
        onChange(String(v));
        setOpen(false);
      }}
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
          isPlaceholder={!chosen}
          icon={chosen?.icon}
          status={isInvalid ? 'danger' : undefined}
          onClick={() => setOpen(!isOpen)}
        >
          {chosen?.label ?? placeholder}
        </MenuToggle>
      )}
    >
      <SelectList aria-label={label}>
        {options.map((o) => (
          <SelectOption key={o.value} value={o.value} description={o.description} icon={o.icon}>
            {o.label}
          </SelectOption>
        ))}
      </SelectList>
    </Select>
  );
}

interface MultiProps {
  id?: string;
  label: string;
  options: readonly Option[];
  values: readonly string[];
  onToggle(value: string): void;
  placeholder?: string;
  isDisabled?: boolean;
  isInvalid?: boolean;
}

/** Several choices with checkboxes; four or more collapse to a count. */
export function MultiSelect({ id, label, options, values, onToggle, placeholder = 'Select', isDisabled, isInvalid }: MultiProps) {
  const [isOpen, setOpen] = useState(false);
  const chosen = options.filter((o) => values.includes(o.value));
  const text = selectionText(
    chosen.map((o) => o.label),
    placeholder,
  );
  return (
    <Select
      isOpen={isOpen}
      selected={values}
      onOpenChange={setOpen}
      onSelect={(_e, v) => onToggle(String(v))}
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
          isPlaceholder={chosen.length === 0}
          status={isInvalid ? 'danger' : undefined}
          onClick={() => setOpen(!isOpen)}
        >
          {text}
        </MenuToggle>
      )}
    >
      <SelectList aria-label={label}>
        {options.map((o) => (
          <SelectOption key={o.value} value={o.value} hasCheckbox isSelected={values.includes(o.value)}>
            {o.label}
          </SelectOption>
        ))}
      </SelectList>
    </Select>
  );
}
