import { ActionGroup, Button, FormGroup, TextInput } from '@patternfly/react-core';
import { DeleteButton } from '../ConfirmDialog';
import { FieldError } from '../FieldError';

/** The fields and buttons every resource form shares: Name, Namespace, and
 * Save/Update, Cancel and Delete (with the spec's confirmation). */

export function NameField({
  id,
  value,
  onChange,
  isDisabled,
  showError,
}: {
  id: string;
  value: string;
  onChange(v: string): void;
  isDisabled: boolean;
  showError: boolean;
}) {
  const error = showError && !value.trim() ? 'Name is required' : undefined;
  return (
    <FormGroup label="Name" fieldId={id} isRequired>
      <TextInput id={id} value={value} isDisabled={isDisabled} validated={error ? 'error' : 'default'} onChange={(_e, v) => onChange(v)} />
      <FieldError text={error} />
    </FormGroup>
  );
}

export function NamespaceField({
  id,
  value,
  onChange,
  isDisabled,
}: {
  id: string;
  value: string;
  onChange(v: string): void;
  isDisabled: boolean;
}) {
  return (
    <FormGroup label="Namespace" fieldId={id}>
      <TextInput id={id} value={value} isDisabled={isDisabled} placeholder="default" onChange={(_e, v) => onChange(v)} />
    </FormGroup>
  );
}

interface ActionsProps {
  /** e.g. ['Save', 'Saving'] or ['Update', 'Updating']. */
  labels: readonly [idle: string, busy: string];
  isBusy: boolean;
  isInvalid: boolean;
  onCancel?(): void;
  onDelete?(): Promise<unknown>;
}

/** Submit (disabled while the form is invalid), then Cancel and Delete when given. */
export function FormActions({ labels, isBusy, isInvalid, onCancel, onDelete }: ActionsProps) {
  return (
    <ActionGroup>
      <Button type="submit" isDisabled={isInvalid || isBusy} isLoading={isBusy}>
        {isBusy ? labels[1] : labels[0]}
      </Button>
      {onCancel && (
        <Button variant="link" onClick={onCancel}>
          Cancel
        </Button>
      )}
      {onDelete && (
        <DeleteButton
          title="Delete resource"
          message="Are you sure you want to delete this resource?"
          isDisabled={isBusy}
          onConfirm={onDelete}
        />
      )}
    </ActionGroup>
  );
}
