import { Form, FormGroup } from '@patternfly/react-core';
import { useState } from 'react';
import { LabelsEditor } from '../../components/LabelsEditor';
import { YamlField } from '../../components/YamlField';
import { labelRows, labelsError, labelsObject } from '../../lib/integrations';
import { parseYamlObject, toYamlText } from '../../lib/yamlText';
import { FormActions, NameField, NamespaceField, submitting } from '../../components/resource-editor/formFields';
import { specProblems } from '../../components/resource-editor/specSchema';
import type { DirectFormProps } from './formParts';
import { TOPOLOGY_SPEC_HELPER, TOPOLOGY_SPEC_SCHEMA, topologyColumns } from './topologySpec';

/** The Custom Topology form (decision 8.7): Name, Namespace, Labels, Spec (YAML). */
export function TopologyForm({ row, readOnly = false, isBusy, onSubmit, onCancel, onDelete }: DirectFormProps) {
  const editing = Boolean(row);
  const [name, setName] = useState(row?.name ?? '');
  const [namespace, setNamespace] = useState(row?.namespace ?? 'default');
  const [labels, setLabels] = useState(() => labelRows(row?.labels));
  const [spec, setSpec] = useState(() => toYamlText(row?.spec));
  const parsed = parseYamlObject(spec);
  const labelError = labelsError(labels);
  const problems = specProblems(parsed, TOPOLOGY_SPEC_SCHEMA);
  const invalid = !name.trim() || Boolean(labelError) || problems.length > 0;

  const submit = () => {
    if (invalid || !parsed.value) return;
    const common = { labels: labelsObject(labels), spec: parsed.value, ...topologyColumns(parsed.value) };
    onSubmit(editing ? common : { name: name.trim(), namespace: namespace.trim() || 'default', ...common });
  };

  return (
    <Form onSubmit={submitting(submit)}>
      <NameField id="topology-name" value={name} isDisabled={editing || readOnly} onChange={setName} />
      <NamespaceField id="topology-namespace" value={namespace} isDisabled={editing || readOnly} onChange={setNamespace} />
      <FormGroup label="Labels" fieldId="topology-labels" role="group">
        <LabelsEditor rows={labels} onChange={setLabels} isDisabled={readOnly} error={labelError} />
      </FormGroup>
      <YamlField
        id="topology-spec"
        label="Spec"
        value={spec}
        onChange={setSpec}
        isDisabled={readOnly}
        errors={problems}
        helper={TOPOLOGY_SPEC_HELPER}
      />
      <FormActions isEditing={editing} isHidden={readOnly} isBusy={isBusy} isInvalid={invalid} onCancel={onCancel} onDelete={onDelete} />
    </Form>
  );
}
