import { ActionGroup, Button, FormGroup, TextInput } from '@patternfly/react-core';
import { useState, type FormEvent } from 'react';
import { DeleteButton } from '../ConfirmDialog';
import { FieldError } from '../FieldError';

/** The props, fields and buttons every resource form shares: Name, Namespace,
 * and Save/Update, Cancel and Delete (with the spec's confirmation). */

/** What a page gives a resource form. */
export interface ResourceFormProps<R> {
  /** The row being edited; none when adding. */
  row?: R;
  /** Rows not written from the UI, readers: fields disabled, no buttons. */
  readOnly?: boolean;
  isBusy: boolean;
  /** The body to POST (adding) or PATCH (editing). */
  onSubmit(body: Record<string, unknown>): void;
  onCancel?(): void;
  onDelete?(): Promise<unknown>;
}

/** A form's submit handler: the page stays, `submit` runs. */
export function submitting(submit: () => void) {
  return (e: FormEvent) => {
    e.preventDefault();
    submit();
  };
}

/** The required Name; 'Name is required' once it was typed in (or `showError`). */
export function NameField({
  id,
  value,
  onChange,
  isDisabled,
  showError = false,
}: {
  id: string;
  value: string;
  onChange(v: string): void;
  isDisabled: boolean;
  showError?: boolean;
}) {
  const [touched, setTouched] = useState(false);
  const error = (showError || touched) && !value.trim() ? 'Name is required' : undefined;
  return (
    <FormGroup label="Name" fieldId={id} isRequired>
      <TextInput
        id={id}
        value={value}
        isDisabled={isDisabled}
        validated={error ? 'error' : 'default'}
        onChange={(_e, v) => (setTouched(true), onChange(v))}
      />
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
  /** Editing an existing resource: Update/Updating and Delete; else `addLabels`. */
  isEditing: boolean;
  /** The form is read-only: no buttons. */
  isHidden?: boolean;
  /** Submit's labels when adding, e.g. ['Add', 'Adding']. */
  addLabels?: readonly [idle: string, busy: string];
  isBusy: boolean;
  isInvalid: boolean;
  onCancel?(): void;
  onDelete?(): Promise<unknown>;
}

/** Submit (disabled while the form is invalid), then Cancel when given and
 * Delete when editing; nothing for a read-only form. */
export function FormActions({ isEditing, isHidden, addLabels = ['Save', 'Saving'], isBusy, isInvalid, onCancel, onDelete }: ActionsProps) {
  if (isHidden) return null;
  const labels = isEditing ? ['Update', 'Updating'] : addLabels;
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
      {isEditing && onDelete && (
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
