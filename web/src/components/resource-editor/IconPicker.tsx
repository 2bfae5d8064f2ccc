import { MenuToggle, Select, SelectList, SelectOption } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';

/** An icon the picker offers: its name as stored, and how it looks. */
export interface IconChoice {
  name: string;
  icon: ReactNode;
}

interface Props {
  id: string;
  choices: readonly IconChoice[];
  /** The stored name; '' for none. */
  value: string;
  onChange(value: string): void;
  /** How a name outside `choices` looks (the current value, kept). */
  render(name: string): ReactNode;
  isDisabled?: boolean;
}

/** A single-choice list of icons with their names: None, the choices, and the
 * current value when it is another one. The toggle is named 'Icon'. */
export function IconPicker({ id, choices, value, onChange, render, isDisabled }: Props) {
  const [isOpen, setOpen] = useState(false);
  const all = value && !choices.some((c) => c.name === value) ? [...choices, { name: value, icon: render(value) }] : choices;
  const chosen = all.find((c) => c.name === value);
  return (
    <Select
      isOpen={isOpen}
      selected={value}
      onOpenChange={setOpen}
      onSelect={(_e, v) => (onChange(String(v)), setOpen(false))}
      isScrollable
      maxMenuHeight="20rem"
      popperProps={{ appendTo: 'inline' }}
      toggle={(ref) => (
        <MenuToggle
          ref={ref}
          id={id}
          aria-label="Icon"
          icon={chosen?.icon}
          isFullWidth
          isDisabled={isDisabled}
          isExpanded={isOpen}
          onClick={() => setOpen(!isOpen)}
        >
          {chosen?.name ?? 'None'}
        </MenuToggle>
      )}
    >
      <SelectList aria-label="Icon">
        <SelectOption value="">None</SelectOption>
        {all.map((c) => (
          <SelectOption key={c.name} value={c.name} icon={c.icon}>
            {c.name}
          </SelectOption>
        ))}
      </SelectList>
    </Select>
  );
}
