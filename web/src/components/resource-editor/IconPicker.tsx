import type { ReactNode } from 'react';
import { SimpleSelect } from '../Selects';

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
  /** The toggle's name; 'Icon' unless the page has another icon picker. */
  label?: string;
}

/** A single choice of icon, each shown with its name: None, the choices, and
 * the current value when it is another one. */
export function IconPicker({ id, choices, value, onChange, render, isDisabled, label = 'Icon' }: Props) {
  const all = value && !choices.some((c) => c.name === value) ? [...choices, { name: value, icon: render(value) }] : choices;
  const options = [{ value: '', label: 'None' }, ...all.map((c) => ({ value: c.name, label: c.name, icon: c.icon }))];
  return <SimpleSelect id={id} label={label} options={options} value={value} onChange={onChange} isDisabled={isDisabled} />;
}
