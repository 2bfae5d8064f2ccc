import { FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea } from '@patternfly/react-core';
import { useState } from 'react';

interface Props<T> {
  id: string;
  label: string;
  /** The text it starts with; afterwards the typed text is kept as typed. */
  initial: string;
  /** The value of typed text, or undefined when it does not parse. */
  parse(text: string): T | undefined;
  onChange(value: T): void;
  helper: string;
  isDisabled?: boolean;
  rows?: number;
}

/** A code field taking YAML or JSON. Text that does not parse is silently
 * ignored: the last value that did stays (spec part 2 section 2.6). */
export function CodeField<T>({ id, label, initial, parse, onChange, helper, isDisabled, rows = 12 }: Props<T>) {
  const [text, setText] = useState(initial);
  return (
    <FormGroup label={label} fieldId={id}>
      <TextArea
        id={id}
        className="pf-v6-u-font-family-monospace"
        rows={rows}
        resizeOrientation="vertical"
        spellCheck={false}
        value={text}
        isDisabled={isDisabled}
        onChange={(_e, v) => {
          setText(v);
          const value = parse(v);
          if (value !== undefined) onChange(value);
        }}
      />
      <FormHelperText>
        <HelperText>
          <HelperTextItem>{helper}</HelperTextItem>
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
