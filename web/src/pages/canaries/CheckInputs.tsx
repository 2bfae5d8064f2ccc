import { Checkbox, FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { LabelsEditor } from '../../components/LabelsEditor';
import { ConnectionPicker } from '../connections/ConnectionPicker';
import type { LabelRow } from '../../lib/integrations';
import type { JsonObject } from '../../lib/yamlText';
import type { Input, Pairs } from './checkFields';
import {
  envText,
  envValue,
  isEnvReference,
  listText,
  listValue,
  numberValue,
  pairRows,
  pairsValue,
  readField,
  valueText,
  writeField,
} from './checkSpec';

/** Changes the edited check item. */
export type UpdateItem = (change: (item: JsonObject) => JsonObject) => void;

export const fieldId = (path: string) => `check-${path.replace(/\./g, '-')}`;

export function Helper({ error, text }: { error?: string; text?: string }) {
  if (!error && !text) return null;
  return (
    <FormHelperText>
      <HelperText>
        <HelperTextItem variant={error ? 'error' : 'default'}>{error ?? text}</HelperTextItem>
      </HelperText>
    </FormHelperText>
  );
}

/** Comma-separated values, kept as typed while the list follows. */
function ListInput({
  id,
  value,
  onChange,
  isDisabled,
  onBlur,
}: {
  id: string;
  value: unknown;
  onChange(v: unknown): void;
  isDisabled: boolean;
  onBlur(): void;
}) {
  const [text, setText] = useState(() => listText(value));
  return (
    <TextInput
      id={id}
      value={text}
      isDisabled={isDisabled}
      onBlur={onBlur}
      onChange={(_e, v) => {
        setText(v);
        onChange(listValue(v));
      }}
    />
  );
}

interface InputProps {
  field: Input;
  item: JsonObject;
  update: UpdateItem;
  isDisabled: boolean;
  error?: string;
  onBlur(): void;
  placeholder?: string;
}

/** One plain field of a check: text, number, list, secret value or checkbox. */
export function InputField({ field, item, update, isDisabled, error, onBlur, placeholder }: InputProps) {
  const id = fieldId(field.path);
  const value = readField(item, field);
  const set = (v: unknown) => update((i) => writeField(i, field, v));
  const validated = error ? 'error' : 'default';
  if (field.kind === 'checkbox') {
    return (
      <Checkbox
        id={id}
        label={field.label}
        isChecked={value === true}
        isDisabled={isDisabled}
        onChange={(_e, checked) => set(checked || undefined)}
      />
    );
  }
  const common = { id, isDisabled, validated, onBlur, placeholder: placeholder ?? field.placeholder } as const;
  let control;
  switch (field.kind) {
    case 'multiline':
      control = (
        <TextArea
          {...common}
          className="pf-v6-u-font-family-monospace"
          rows={4}
          resizeOrientation="vertical"
          value={valueText(value)}
          onChange={(_e, v) => set(v)}
        />
      );
      break;
    case 'number':
      control = <TextInput {...common} inputMode="numeric" value={valueText(value)} onChange={(_e, v) => set(numberValue(v))} />;
      break;
    case 'list':
      control = <ListInput id={id} value={value} onChange={set} isDisabled={isDisabled} onBlur={onBlur} />;
      break;
    case 'env':
    case 'secret':
      control = (
        <TextInput
          {...common}
          type={field.kind === 'secret' ? 'password' : 'text'}
          value={envText(value)}
          onChange={(_e, v) => set(envValue(v))}
        />
      );
      break;
    default:
      control = field.connectionTypes ? (
        <ConnectionPicker
          id={id}
          label={field.label}
          types={field.connectionTypes}
          value={valueText(value)}
          isDisabled={isDisabled}
          isInvalid={Boolean(error)}
          onBlur={onBlur}
          onChange={(v) => set(v)}
        />
      ) : (
        <TextInput {...common} value={valueText(value)} onChange={(_e, v) => set(v)} />
      );
  }
  const reference = isEnvReference(value) ? 'Taken from a secret or config map (see Code)' : undefined;
  return (
    <FormGroup label={field.label} fieldId={id} isRequired={field.required}>
      {control}
      <Helper error={error} text={reference ?? field.helper} />
    </FormGroup>
  );
}

/** Key/value rows ('Header 1 name', 'Header 1 value', …). */
export function PairsField({
  field,
  item,
  update,
  isDisabled,
}: {
  field: Pairs;
  item: JsonObject;
  update: UpdateItem;
  isDisabled: boolean;
}) {
  const [rows, setRows] = useState(() => pairRows(item[field.path], field.shape));
  const change = (next: LabelRow[]) => {
    setRows(next);
    update((i) => writeField(i, field, pairsValue(next, field.shape)));
  };
  return (
    <FormGroup label={field.label} fieldId={fieldId(field.path)} role="group">
      <LabelsEditor rows={rows} onChange={change} isDisabled={isDisabled} noun={field.label.replace(/s$/, '')} keyName="name" />
    </FormGroup>
  );
}
