import { ActionGroup, Button, Checkbox, Form, FormGroup, TextArea, TextInput } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import type { ConnectionTypeInfo } from '../../api/connections.gen';
import { FieldError } from '../../components/FieldError';
import { SimpleSelect } from '../../components/Selects';
import { Helper } from '../canaries/CheckInputs';
import {
  initialForm,
  isSecret,
  requestBody,
  stateOf,
  validate,
  type FieldInfo,
  type FieldState,
  type FormState,
  type FieldView,
} from './connectionForm';
import { SecretField } from './SecretField';

export interface Stored {
  name: string;
  namespace: string;
  fields: Record<string, FieldView>;
}

interface Props {
  type: ConnectionTypeInfo;
  /** The connection being edited; none when adding. */
  stored?: Stored;
  /** Not written from the UI: fields disabled, no Save. */
  readOnly: boolean;
  isBusy: boolean;
  /** Problems the server found, by key. */
  serverErrors: Record<string, string>;
  onSubmit(body: ReturnType<typeof requestBody>): void;
  onCancel(): void;
  /** Extra actions after Save and Cancel (Test, Delete). */
  actions?: ReactNode;
}

const fieldId = (key: string) => `connection-field-${key}`;

function FieldControl({
  field,
  state,
  isDisabled,
  isInvalid,
  onChange,
  onBlur,
}: {
  field: FieldInfo;
  state: FieldState;
  isDisabled: boolean;
  isInvalid: boolean;
  onChange(state: FieldState): void;
  onBlur(): void;
}) {
  const id = fieldId(field.key);
  const validated = isInvalid ? 'error' : 'default';
  if (isSecret(state))
    return (
      <SecretField
        id={id}
        label={field.label}
        multiline={field.multiline}
        state={state}
        isDisabled={isDisabled}
        isInvalid={isInvalid}
        onChange={onChange}
        onBlur={onBlur}
      />
    );
  const text = String(state);
  switch (field.kind) {
    case 'boolean':
      return <Checkbox id={id} label={field.label} isChecked={state === true} isDisabled={isDisabled} onChange={(_e, v) => onChange(v)} />;
    case 'select':
      return (
        <SimpleSelect
          id={id}
          label={field.label}
          options={(field.options ?? []).map((o) => ({ value: o, label: o }))}
          value={text}
          isDisabled={isDisabled}
          isInvalid={isInvalid}
          onChange={onChange}
        />
      );
    case 'textarea':
      return (
        <TextArea
          id={id}
          rows={4}
          resizeOrientation="vertical"
          className="pf-v6-u-font-family-monospace"
          value={text}
          isDisabled={isDisabled}
          validated={validated}
          onBlur={onBlur}
          onChange={(_e, v) => onChange(v)}
        />
      );
    default:
      return (
        <TextInput
          id={id}
          inputMode={field.kind === 'number' ? 'numeric' : undefined}
          value={text}
          isDisabled={isDisabled}
          validated={validated}
          onBlur={onBlur}
          onChange={(_e, v) => onChange(v)}
        />
      );
  }
}

/** One connection type's form, generated from its fields in the catalogue. */
export function ConnectionForm({ type, stored, readOnly, isBusy, serverErrors, onSubmit, onCancel, actions }: Props) {
  const editing = Boolean(stored);
  const [form, setForm] = useState<FormState>(() => initialForm(type, stored));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const [submitted, setSubmitted] = useState(false);
  const touch = (key: string) => setTouched((t) => (t.has(key) ? t : new Set([...t, key])));
  const errors = validate(type, form);
  // A server problem shows until the field is changed.
  const [changedSinceServer, setChanged] = useState<ReadonlySet<string>>(new Set());
  const errorOf = (key: string) =>
    ((submitted || touched.has(key)) && errors[key]) || (!changedSinceServer.has(key) ? serverErrors[key] : undefined) || undefined;
  const change = (key: string, state: FieldState) => {
    setForm((f) => ({ ...f, fields: { ...f.fields, [key]: state } }));
    setChanged((c) => new Set([...c, key]));
  };

  const submit = () => {
    setSubmitted(true);
    setChanged(new Set());
    if (Object.keys(errors).length === 0) onSubmit(requestBody(type, form));
  };

  return (
    <Form
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      <FormGroup label="Name" fieldId="connection-name" isRequired>
        <TextInput
          id="connection-name"
          value={form.name}
          isDisabled={editing || readOnly}
          validated={errorOf('name') ? 'error' : 'default'}
          onBlur={() => touch('name')}
          onChange={(_e, name) => (setForm((f) => ({ ...f, name })), setChanged((c) => new Set([...c, 'name'])))}
        />
        <FieldError text={errorOf('name')} />
      </FormGroup>
      <FormGroup label="Namespace" fieldId="connection-namespace" isRequired>
        <TextInput
          id="connection-namespace"
          value={form.namespace}
          isDisabled={editing || readOnly}
          validated={errorOf('namespace') ? 'error' : 'default'}
          onBlur={() => touch('namespace')}
          onChange={(_e, namespace) => (setForm((f) => ({ ...f, namespace })), setChanged((c) => new Set([...c, 'namespace'])))}
        />
        <FieldError text={errorOf('namespace')} />
      </FormGroup>
      {type.fields.map((field) => {
        const error = errorOf(field.key);
        const control = (
          <FieldControl
            field={field}
            state={stateOf(form, field)}
            isDisabled={readOnly}
            isInvalid={Boolean(error)}
            onChange={(s) => change(field.key, s)}
            onBlur={() => touch(field.key)}
          />
        );
        return (
          <FormGroup
            key={field.key}
            label={field.kind === 'boolean' ? undefined : field.label}
            fieldId={fieldId(field.key)}
            isRequired={field.required}
          >
            {control}
            <Helper error={error} text={field.help} />
          </FormGroup>
        );
      })}
      <ActionGroup>
        {!readOnly && (
          <Button type="submit" isDisabled={isBusy} isLoading={isBusy}>
            {isBusy ? 'Saving' : 'Save'}
          </Button>
        )}
        <Button variant="link" onClick={onCancel}>
          {readOnly ? 'Back' : 'Cancel'}
        </Button>
        {actions}
      </ActionGroup>
    </Form>
  );
}
