import {
  Button,
  Flex,
  FlexItem,
  Form,
  FormGroup,
  FormHelperText,
  FormSection,
  HelperText,
  HelperTextItem,
  TextArea,
  TextInput,
} from '@patternfly/react-core';
import PlusCircleIcon from '@patternfly/react-icons/dist/esm/icons/plus-circle-icon';
import TrashIcon from '@patternfly/react-icons/dist/esm/icons/trash-icon';
import { useState } from 'react';
import { SimpleSelect } from '../../components/Selects';
import { YamlField } from '../../components/YamlField';
import { ConnectionPicker } from '../connections/ConnectionPicker';
import {
  CUSTOM,
  RETENTION_LISTS,
  SCRAPER_SCHEDULES,
  SCRAPER_TYPES,
  buildScraperSpec,
  changeScraperType,
  addRetentionRow,
  newScraperForm,
  parseScraperSpec,
  removeRetentionRow,
  scraperType,
  setRetentionField,
  type ScraperField,
} from './scrapers';
import { FormActions, NameField, NamespaceField, submitting } from '../../components/resource-editor/formFields';
import type { DirectFormProps } from './formParts';

const TYPE_OPTIONS = SCRAPER_TYPES.map((t) => ({ value: t.key, label: t.label }));
const NO_SCHEDULE = { value: '', label: 'Default' };
const fieldId = (path: string) => `scraper-field-${path.replace(/\./g, '-')}`;

function Field({
  id,
  field,
  value,
  error,
  isDisabled,
  onChange,
  onBlur,
}: {
  id: string;
  field: ScraperField;
  value: string;
  error?: string;
  isDisabled: boolean;
  onChange(v: string): void;
  onBlur(): void;
}) {
  const validated = error ? 'error' : 'default';
  return (
    <FormGroup label={field.label} fieldId={id} isRequired={field.required}>
      {field.kind === 'multiline' ? (
        <TextArea
          id={id}
          className="pf-v6-u-font-family-monospace"
          rows={4}
          value={value}
          isDisabled={isDisabled}
          validated={validated}
          onChange={(_e, v) => onChange(v)}
          onBlur={onBlur}
        />
      ) : field.connectionTypes ? (
        <ConnectionPicker
          id={id}
          label={field.label}
          types={field.connectionTypes}
          value={value}
          isDisabled={isDisabled}
          isInvalid={Boolean(error)}
          onChange={onChange}
          onBlur={onBlur}
        />
      ) : (
        <TextInput
          id={id}
          type={field.kind === 'number' ? 'number' : 'text'}
          value={value}
          isDisabled={isDisabled}
          validated={validated}
          onChange={(_e, v) => onChange(v)}
          onBlur={onBlur}
        />
      )}
      {(error || field.helper) && (
        <FormHelperText>
          <HelperText>
            <HelperTextItem variant={error ? 'error' : 'default'}>{error ?? field.helper}</HelperTextItem>
          </HelperText>
        </FormHelperText>
      )}
    </FormGroup>
  );
}

/** The Catalog Scraper form (decision 8.6): Name, Namespace, a type with its
 * own fields and retention entries (Custom: the spec as YAML) and a schedule. */
export function ScraperForm({ row, readOnly = false, isBusy, onSubmit, onCancel, onDelete }: DirectFormProps) {
  const editing = Boolean(row);
  const [name, setName] = useState(row?.name ?? '');
  const [namespace, setNamespace] = useState(row?.namespace ?? 'default');
  const [form, setForm] = useState(() => (row ? parseScraperSpec(row.spec) : newScraperForm()));
  const [touched, setTouched] = useState<ReadonlySet<string>>(new Set());
  const touch = (key: string) => setTouched((t) => (t.has(key) ? t : new Set([...t, key])));
  const built = buildScraperSpec(form);
  const invalid = !name.trim() || !built.spec;
  const type = scraperType(form.type);
  const schedules = [NO_SCHEDULE, ...SCRAPER_SCHEDULES.map((s) => ({ value: s, label: s }))];
  if (form.schedule && !SCRAPER_SCHEDULES.some((s) => s === form.schedule)) schedules.push({ value: form.schedule, label: form.schedule });

  const submit = () => {
    if (invalid || !built.spec) return;
    onSubmit(editing ? { spec: built.spec } : { name: name.trim(), namespace: namespace.trim() || 'default', spec: built.spec });
  };

  return (
    <Form onSubmit={submitting(submit)}>
      <NameField
        id="scraper-name"
        value={name}
        isDisabled={editing || readOnly}
        showError={touched.has('name')}
        onChange={(v) => (setName(v), touch('name'))}
      />
      <NamespaceField id="scraper-namespace" value={namespace} isDisabled={editing || readOnly} onChange={setNamespace} />
      <FormGroup label="Type" fieldId="scraper-type" isRequired>
        <SimpleSelect
          id="scraper-type"
          label="Type"
          options={TYPE_OPTIONS}
          value={form.type}
          isDisabled={readOnly}
          onChange={(v) => setForm((f) => changeScraperType(f, v))}
        />
      </FormGroup>
      {type.key === CUSTOM ? (
        <YamlField
          id="scraper-spec"
          label="Spec"
          value={form.yaml}
          isDisabled={readOnly}
          onChange={(yaml) => (setForm((f) => ({ ...f, yaml })), touch('yaml'))}
          errors={built.errors.yaml && (touched.has('yaml') || form.yaml.trim()) ? built.errors.yaml.split('\n') : []}
          helper="YAML: one or more scrapers, e.g. kubernetes: [{clusterName: …}]"
        />
      ) : (
        type.fields.map((field) => (
          <Field
            key={`${type.key}-${field.path}`}
            id={fieldId(field.path)}
            field={field}
            value={form.fields[field.path] ?? ''}
            error={touched.has(field.path) ? built.errors[field.path] : undefined}
            isDisabled={readOnly}
            onChange={(v) => setForm((f) => ({ ...f, fields: { ...f.fields, [field.path]: v } }))}
            onBlur={() => touch(field.path)}
          />
        ))
      )}
      {type.key !== CUSTOM && (
        <FormSection title="Retention" titleElement="h3">
          {RETENTION_LISTS.map((list) => (
            <FormGroup key={list.key} label={list.label} role="group" fieldId={`scraper-retention-${list.key}`}>
              {form.retention[list.key].map((row, index) => {
                const name = `${list.entry} ${index + 1}`;
                const prefix = `retention.${list.key}.${index}.`;
                return (
                  <Flex key={index} role="group" aria-label={name} alignItems={{ default: 'alignItemsFlexEnd' }}>
                    {list.fields.map((field) => (
                      <FlexItem key={field.path}>
                        <Field
                          id={fieldId(prefix + field.path)}
                          field={field}
                          value={row.fields[field.path] ?? ''}
                          error={touched.has(prefix + field.path) ? built.errors[prefix + field.path] : undefined}
                          isDisabled={readOnly}
                          onChange={(v) => setForm((f) => setRetentionField(f, list.key, index, field.path, v))}
                          onBlur={() => touch(prefix + field.path)}
                        />
                      </FlexItem>
                    ))}
                    {!readOnly && (
                      <Button
                        variant="plain"
                        aria-label={`Remove ${name.toLowerCase()}`}
                        icon={<TrashIcon />}
                        onClick={() => setForm((f) => removeRetentionRow(f, list.key, index))}
                      />
                    )}
                  </Flex>
                );
              })}
              {!readOnly && (
                <Button variant="link" isInline icon={<PlusCircleIcon />} onClick={() => setForm((f) => addRetentionRow(f, list.key))}>
                  Add {list.entry.toLowerCase()}
                </Button>
              )}
            </FormGroup>
          ))}
        </FormSection>
      )}
      <FormGroup label="Schedule" fieldId="scraper-schedule">
        <SimpleSelect
          id="scraper-schedule"
          label="Schedule"
          options={schedules}
          value={form.schedule}
          isDisabled={readOnly}
          onChange={(schedule) => setForm((f) => ({ ...f, schedule }))}
        />
      </FormGroup>
      <FormActions isEditing={editing} isHidden={readOnly} isBusy={isBusy} isInvalid={invalid} onCancel={onCancel} onDelete={onDelete} />
    </Form>
  );
}
