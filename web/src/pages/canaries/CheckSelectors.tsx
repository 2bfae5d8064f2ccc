import { FormGroup, TextArea } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import { SimpleSelect } from '../../components/Selects';
import type { JsonObject } from '../../lib/yamlText';
import { AUTH_LABELS, SCRIPT_KINDS, type Auth, type FolderConnection, type Input, type Script } from './checkFields';
import {
  authKind,
  connectionKind,
  scriptKind,
  scriptText,
  setAuthKind,
  setConnectionKind,
  setScriptKind,
  setScriptText,
} from './checkSpec';
import { Helper, fieldId, type UpdateItem } from './CheckInputs';

interface Props<F> {
  field: F;
  item: JsonObject;
  update: UpdateItem;
  isDisabled: boolean;
}

const CREDENTIALS: readonly Input[] = [
  { kind: 'env', path: 'username', label: 'Username' },
  { kind: 'secret', path: 'password', label: 'Password' },
];

/** Authentication: None or one kind, then its username and password. The
 * choice is held here: Basic has no flag to read it back from until
 * credentials are typed. */
export function AuthField({ field, item, update, isDisabled, renderInput }: Props<Auth> & { renderInput(field: Input): ReactNode }) {
  const [kind, setKind] = useState(() => authKind(item));
  return (
    <>
      <FormGroup label="Authentication" fieldId="check-authentication">
        <SimpleSelect
          id="check-authentication"
          label="Authentication"
          options={field.kinds.map((k) => ({ value: k, label: AUTH_LABELS[k] }))}
          value={kind}
          isDisabled={isDisabled}
          onChange={(v) => {
            const next = field.kinds.find((k) => k === v) ?? 'none';
            setKind(next);
            update((i) => setAuthKind(i, next));
          }}
        />
      </FormGroup>
      {kind !== 'none' && CREDENTIALS.map(renderInput)}
    </>
  );
}

/** Test, Display or Transform: a language, then the expression. */
export function ScriptField({ field, item, update, isDisabled }: Props<Script>) {
  const kind = scriptKind(item, field.path);
  const id = fieldId(field.path);
  return (
    <FormGroup label={field.label} fieldId={id} role="group">
      <SimpleSelect
        id={id}
        label={`${field.label} language`}
        options={SCRIPT_KINDS.map((k) => ({ value: k.id, label: k.label }))}
        value={kind}
        isDisabled={isDisabled}
        onChange={(v) => update((i) => setScriptKind(i, field.path, SCRIPT_KINDS.find((k) => k.id === v)?.id ?? 'none'))}
      />
      {kind !== 'none' && (
        <div className="pf-v6-u-mt-sm">
          <TextArea
            aria-label={`${field.label} expression`}
            className="pf-v6-u-font-family-monospace"
            rows={3}
            resizeOrientation="vertical"
            value={scriptText(item, field.path)}
            isDisabled={isDisabled}
            onChange={(_e, v) => update((i) => setScriptText(i, field.path, v))}
          />
        </div>
      )}
      <Helper text={field.helper} />
    </FormGroup>
  );
}

/** The folder check's connection: None or one of AWS, GCP, SFTP, SMB. */
export function ConnectionField({
  field,
  item,
  update,
  isDisabled,
  renderInput,
}: Props<FolderConnection> & { renderInput(field: Input): ReactNode }) {
  const kind = connectionKind(item);
  const chosen = field.options.find((o) => o.id === kind);
  return (
    <>
      <FormGroup label={field.label} fieldId="check-connection-type">
        <SimpleSelect
          id="check-connection-type"
          label="Connection type"
          options={[{ value: 'none', label: 'None' }, ...field.options.map((o) => ({ value: o.id, label: o.label }))]}
          value={kind}
          isDisabled={isDisabled}
          onChange={(v) => update((i) => setConnectionKind(i, v))}
        />
      </FormGroup>
      {chosen?.fields.map(renderInput)}
    </>
  );
}
