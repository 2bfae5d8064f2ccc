import { ActionGroup, Button, Form, FormGroup, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import type { FieldProblem } from '../../../api/errors';
import { DeleteButton } from '../../../components/ConfirmDialog';
import { FieldError } from '../../../components/FieldError';
import { YamlField } from '../../../components/YamlField';
import { parseYamlObject, toYamlText, type JsonObject } from '../../../lib/yamlText';
import { problemText, specProblems } from './playbookSpec';

export interface PlaybookValues {
  name: string;
  namespace: string;
  spec: JsonObject;
}

interface Props {
  initial?: { name: string; namespace: string; spec: unknown };
  /** CRD rows, deleted rows and readers: fields disabled, no buttons. */
  readOnly: boolean;
  isBusy: boolean;
  /** The server's problems with the last save. */
  serverProblems: readonly FieldProblem[];
  onSubmit(values: PlaybookValues): void;
  onCancel(): void;
  onDelete?(): Promise<unknown>;
}

const SPEC_HELP =
  'YAML of the Playbook CRD spec: title, icon, category, description, parameters, configs, components, checks, approval, on, actions';

/** Name, Namespace and the spec as YAML, checked as typed and on the server. */
export function PlaybookForm({ initial, readOnly, isBusy, serverProblems, onSubmit, onCancel, onDelete }: Props) {
  const editing = initial !== undefined;
  const [name, setName] = useState(initial?.name ?? '');
  const [namespace, setNamespace] = useState(initial?.namespace ?? 'default');
  const [spec, setSpec] = useState(() => toYamlText(initial?.spec));
  const [nameTouched, setNameTouched] = useState(false);
  const [sent, setSent] = useState<string>();
  const parsed = parseYamlObject(spec);
  const problems = parsed.value ? specProblems(parsed.value).map(problemText) : [parsed.error];
  // The server's problems belong to the text that was sent.
  const shown = problems.length > 0 ? problems : sent === spec ? serverProblems.map(problemText) : [];
  const nameError = nameTouched && !name.trim() ? 'Name is required' : undefined;
  const invalid = !name.trim() || problems.length > 0;

  return (
    <Form
      onSubmit={(e) => {
        e.preventDefault();
        if (invalid || !parsed.value) return;
        setSent(spec);
        onSubmit({ name: name.trim(), namespace: namespace.trim() || 'default', spec: parsed.value });
      }}
    >
      <FormGroup label="Name" fieldId="playbook-name" isRequired>
        <TextInput
          id="playbook-name"
          value={name}
          isDisabled={editing || readOnly}
          validated={nameError ? 'error' : 'default'}
          onChange={(_e, v) => (setName(v), setNameTouched(true))}
        />
        <FieldError text={nameError} />
      </FormGroup>
      <FormGroup label="Namespace" fieldId="playbook-namespace">
        <TextInput
          id="playbook-namespace"
          value={namespace}
          placeholder="default"
          isDisabled={editing || readOnly}
          onChange={(_e, v) => setNamespace(v)}
        />
      </FormGroup>
      <YamlField
        id="playbook-spec"
        label="Spec"
        value={spec}
        onChange={setSpec}
        isDisabled={readOnly}
        errors={shown}
        rows={20}
        helper={SPEC_HELP}
      />
      {!readOnly && (
        <ActionGroup>
          <Button type="submit" isDisabled={invalid || isBusy} isLoading={isBusy}>
            {editing ? (isBusy ? 'Updating' : 'Update') : isBusy ? 'Saving' : 'Save'}
          </Button>
          <Button variant="link" onClick={onCancel}>
            Cancel
          </Button>
          {onDelete && (
            <DeleteButton
              title="Delete resource"
              message="Are you sure you want to delete this resource?"
              isDisabled={isBusy}
              onConfirm={onDelete}
            />
          )}
        </ActionGroup>
      )}
    </Form>
  );
}
