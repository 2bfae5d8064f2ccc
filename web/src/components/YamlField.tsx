import { FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea } from '@patternfly/react-core';
import type { ReactNode } from 'react';

interface Props {
  id: string;
  label: string;
  value: string;
  onChange(value: string): void;
  /** One message, or several (e.g. one per schema problem). */
  errors?: readonly string[];
  helper?: ReactNode;
  isDisabled?: boolean;
  isRequired?: boolean;
  rows?: number;
}

/** A YAML editor: a monospace text area with its problems listed under it. */
export function YamlField({ id, label, value, onChange, errors = [], helper = 'YAML', isDisabled, isRequired, rows = 12 }: Props) {
  return (
    <FormGroup label={label} fieldId={id} isRequired={isRequired}>
      <TextArea
        id={id}
        className="pf-v6-u-font-family-monospace"
        rows={rows}
        resizeOrientation="vertical"
        spellCheck={false}
        value={value}
        isDisabled={isDisabled}
        validated={errors.length ? 'error' : 'default'}
        onChange={(_e, v) => onChange(v)}
      />
      <FormHelperText>
        <HelperText>
          {errors.length === 0 ? (
            <HelperTextItem>{helper}</HelperTextItem>
          ) : (
            errors.map((e) => (
              <HelperTextItem key={e} variant="error">
                {e}
              </HelperTextItem>
            ))
          )}
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
