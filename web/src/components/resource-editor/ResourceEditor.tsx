import { Form, FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import { parseYamlObject, toYamlText, type JsonObject } from '../../lib/yamlText';
import { SimpleSelect } from '../Selects';
import { YamlField } from '../YamlField';
import { FormActions, NameField, NamespaceField, submitting, type ResourceFormProps } from './formFields';
import { IconPicker, type IconChoice } from './IconPicker';
import { labelsText, parseLabels, scheduleOptions, specText, withSpecKey } from './resourceEditor';
import { specProblems, type SpecSchema } from './specSchema';

/** What kind of resource the editor edits. */
export interface ResourceKind {
  /** Prefix of the fields' ids. */
  id: string;
  /** The CRD's spec schema, checked before saving. */
  schema: SpecSchema;
  /** Entities with a namespace (shown, disabled when editing). */
  hasNamespace?: boolean;
  /** Entities without a labels column (incident rules): no Labels field. */
  noLabels?: boolean;
  /** Entities with an icon: the picker's choices and how any other name
   * looks. It edits the spec's `icon`. */
  icons?: { choices: readonly IconChoice[]; render(name: string): ReactNode };
  /** Entities with a schedule: what none means (e.g. 'Every 10 minutes').
   * The dropdown edits the spec's `schedule`. */
  defaultSchedule?: string;
  /** Columns written with the spec that mirror it (e.g. a schedule column). */
  columns?(spec: JsonObject): Record<string, unknown>;
  /** Help under the Spec field. */
  specHelper?: ReactNode;
}

/** The row being edited. */
export interface EditedResource {
  name: string;
  namespace?: string | null;
  labels?: unknown;
  spec?: unknown;
}

interface Props extends ResourceFormProps<EditedResource> {
  kind: ResourceKind;
}

/** The spec's generic resource editor (part 2, 2.5): Name and Namespace
 * (disabled when editing), an icon picker and a schedule dropdown for the
 * entities that have them, Labels as JSON, Spec as YAML checked against the
 * CRD's schema, Save/Update and Delete. The picker and the dropdown write into
 * the spec's text, the one place the engine reads them from. */
export function ResourceEditor({ kind, row, readOnly = false, isBusy, onSubmit, onCancel, onDelete }: Props) {
  const editing = Boolean(row);
  const [name, setName] = useState(row?.name ?? '');
  const [namespace, setNamespace] = useState(row?.namespace ?? 'default');
  const [labels, setLabels] = useState(() => labelsText(row?.labels));
  const [spec, setSpec] = useState(() => toYamlText(row?.spec));
  const parsed = parseYamlObject(spec);
  const problems = specProblems(parsed, kind.schema);
  const typedLabels = parseLabels(labels);
  const invalid = !name.trim() || problems.length > 0;
  /** The picker and the dropdown follow the spec; they wait while it does not parse. */
  const specKey = (key: string) => specText(parsed.value, key) ?? '';
  const setSpecKey = (key: string, value: string) => {
    const next = withSpecKey(spec, key, value || undefined);
    if (next !== undefined) setSpec(next);
  };
  const fieldsDisabled = readOnly || parsed.error !== undefined;

  const submit = () => {
    if (invalid || !parsed.value) return;
    const body = {
      ...(typedLabels.labels && !kind.noLabels ? { labels: typedLabels.labels } : {}),
      spec: parsed.value,
      ...kind.columns?.(parsed.value),
    };
    onSubmit(editing ? body : { name: name.trim(), ...(kind.hasNamespace ? { namespace: namespace.trim() || 'default' } : {}), ...body });
  };

  return (
    <Form onSubmit={submitting(submit)}>
      <NameField id={`${kind.id}-name`} value={name} isDisabled={editing || readOnly} onChange={setName} />
      {kind.hasNamespace && (
        <NamespaceField id={`${kind.id}-namespace`} value={namespace} isDisabled={editing || readOnly} onChange={setNamespace} />
      )}
      {kind.icons && (
        <FormGroup label="Icon" fieldId={`${kind.id}-icon`}>
          <IconPicker
            id={`${kind.id}-icon`}
            choices={kind.icons.choices}
            render={kind.icons.render}
            value={specKey('icon')}
            onChange={(v) => setSpecKey('icon', v)}
            isDisabled={fieldsDisabled}
          />
        </FormGroup>
      )}
      {kind.defaultSchedule !== undefined && (
        <FormGroup label="Schedule" fieldId={`${kind.id}-schedule`}>
          <SimpleSelect
            id={`${kind.id}-schedule`}
            label="Schedule"
            options={scheduleOptions(specKey('schedule'), kind.defaultSchedule)}
            value={specKey('schedule')}
            onChange={(v) => setSpecKey('schedule', v)}
            isDisabled={fieldsDisabled}
          />
        </FormGroup>
      )}
      {!kind.noLabels && (
        <FormGroup label="Labels" fieldId={`${kind.id}-labels`}>
          <TextArea
            id={`${kind.id}-labels`}
            className="pf-v6-u-font-family-monospace"
            rows={4}
            resizeOrientation="vertical"
            spellCheck={false}
            value={labels}
            isDisabled={readOnly}
            validated={typedLabels.problem ? 'warning' : 'default'}
            onChange={(_e, v) => setLabels(v)}
          />
          <FormHelperText>
            <HelperText>
              {typedLabels.problem ? (
                <HelperTextItem variant="warning">
                  {`${typedLabels.problem}: these labels are ignored${editing ? ' and the saved ones kept' : ''}`}
                </HelperTextItem>
              ) : (
                <HelperTextItem>{'JSON, e.g. {"team": "payments"}'}</HelperTextItem>
              )}
            </HelperText>
          </FormHelperText>
        </FormGroup>
      )}
      <YamlField
        id={`${kind.id}-spec`}
        label="Spec"
        value={spec}
        onChange={setSpec}
        isDisabled={readOnly}
        errors={problems}
        helper={kind.specHelper}
        rows={16}
      />
      <FormActions isEditing={editing} isHidden={readOnly} isBusy={isBusy} isInvalid={invalid} onCancel={onCancel} onDelete={onDelete} />
    </Form>
  );
}
