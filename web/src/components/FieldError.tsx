import { FormHelperText, HelperText, HelperTextItem } from '@patternfly/react-core';

/** A field's validation message, when it has one. */
export function FieldError({ text }: { text?: string }) {
  if (!text) return null;
  return (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant="error">{text}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );
}
