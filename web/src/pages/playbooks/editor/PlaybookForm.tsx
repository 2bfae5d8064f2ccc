import { Form } from '@patternfly/react-core';
import { useState } from 'react';
import type { FieldProblem } from '../../../api/errors';
import { FormActions, NameField, NamespaceField, submitting } from '../../../components/resource-editor/formFields';
import { YamlField } from '../../../components/YamlField';
import { parseYamlObject, toYamlText, type JsonObject } from '../../../lib/yamlText';
import { problemText, specLines } from './playbookSpec';

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

/** Name, Namespace and the spec as YAML, checked against the Playbook CRD as typed and by the server on save. */
export function PlaybookForm({ initial, readOnly, isBusy, serverProblems, onSubmit, onCancel, onDelete }: Props) {
  const editing = initial !== undefined;
  const [name, setName] = useState(initial?.name ?? '');
  const [namespace, setNamespace] = useState(initial?.namespace ?? 'default');
  const [spec, setSpec] = useState(() => toYamlText(initial?.spec));
  const [sent, setSent] = useState<string>();
  const parsed = parseYamlObject(spec);
  const problems = parsed.value ? specLines(parsed.value) : [parsed.error];
  // The server's problems belong to the text that was sent.
  const shown = problems.length > 0 ? problems : sent === spec ? serverProblems.map(problemText) : [];
  const invalid = !name.trim() || problems.length > 0;

  return (
    <Form
      onSubmit={submitting(() => {
        if (invalid || !parsed.value) return;
        setSent(spec);
        onSubmit({ name: name.trim(), namespace: namespace.trim() || 'default', spec: parsed.value });
      })}
    >
      <NameField id="playbook-name" value={name} isDisabled={editing || readOnly} onChange={setName} />
      <NamespaceField id="playbook-namespace" value={namespace} isDisabled={editing || readOnly} onChange={setNamespace} />
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
      <FormActions isEditing={editing} isHidden={readOnly} isBusy={isBusy} isInvalid={invalid} onCancel={onCancel} onDelete={onDelete} />
    </Form>
  );
}
