import { Form, FormGroup } from '@patternfly/react-core';
import { useState } from 'react';
import { LabelsEditor } from '../../components/LabelsEditor';
import { YamlField } from '../../components/YamlField';
import { labelRows, labelsError, labelsObject } from '../../lib/integrations';
import { parseYamlObject, toYamlText } from '../../lib/yamlText';
import { FormActions, NameField, submitting } from '../../components/resource-editor/formFields';
import type { DirectFormProps } from './formParts';

/** The Log Backends form: Name (required), Labels, Spec (YAML). */
export function LogBackendForm({ row, readOnly = false, isBusy, onSubmit, onDelete }: DirectFormProps) {
  const editing = Boolean(row);
  const [name, setName] = useState(row?.name ?? '');
  const [labels, setLabels] = useState(() => labelRows(row?.labels));
  const [spec, setSpec] = useState(() => toYamlText(row?.spec));
  const parsed = parseYamlObject(spec);
  const labelError = labelsError(labels);
  const invalid = !name.trim() || Boolean(labelError) || parsed.error !== undefined;

  const submit = () => {
    if (invalid || !parsed.value) return;
    const common = { labels: labelsObject(labels), spec: parsed.value };
    onSubmit(editing ? common : { name: name.trim(), ...common });
  };

  return (
    <Form onSubmit={submitting(submit)}>
      <NameField id="log-backend-name" value={name} isDisabled={editing || readOnly} onChange={setName} />
      <FormGroup label="Labels" fieldId="log-backend-labels" role="group">
        <LabelsEditor rows={labels} onChange={setLabels} isDisabled={readOnly} error={labelError} />
      </FormGroup>
      <YamlField
        id="log-backend-spec"
        label="Spec"
        value={spec}
        onChange={setSpec}
        isDisabled={readOnly}
        errors={parsed.error ? [parsed.error] : []}
        helper="YAML, e.g. loki: {url: …} or opensearch: {…}"
      />
      <FormActions
        isEditing={editing}
        isHidden={readOnly}
        addLabels={['Add', 'Adding']}
        isBusy={isBusy}
        isInvalid={invalid}
        onDelete={onDelete}
      />
    </Form>
  );
}
