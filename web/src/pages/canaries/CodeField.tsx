import { useState } from 'react';
import { YamlField } from '../../components/YamlField';

interface Props<T> {
  id: string;
  label: string;
  /** The text it starts with; afterwards the typed text is kept as typed. */
  initial: string;
  /** The value of typed text, or undefined when it does not parse. */
  parse(text: string): T | undefined;
  onChange(value: T): void;
  helper: string;
  /** Problems of the last value that parsed, shown instead of the helper. */
  errors?: readonly string[];
  isDisabled?: boolean;
  rows?: number;
}

/** A code field taking YAML or JSON. Text that does not parse is silently
 * ignored: the last value that did stays. */
export function CodeField<T>({ initial, parse, onChange, ...field }: Props<T>) {
  const [text, setText] = useState(initial);
  return (
    <YamlField
      {...field}
      value={text}
      onChange={(v) => {
        setText(v);
        const value = parse(v);
        if (value !== undefined) onChange(value);
      }}
    />
  );
}
