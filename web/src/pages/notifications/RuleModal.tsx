import { Alert, Button, FormGroup, FormHelperText, HelperText, HelperTextItem, TextArea, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { DeleteButton } from '../../components/ConfirmDialog';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { MultiSelect } from '../../components/Selects';
import { EMPTY_RULE, EVENTS, ruleColumns, ruleForm, type RuleColumns, type RuleErrors, type RuleForm } from './notificationModel';
import { InhibitionsField } from './InhibitionsField';
import { RecipientField } from './RecipientField';
import { useRecipientOptions, type RuleRow } from './useNotificationsData';

const EVENT_OPTIONS = EVENTS.map((e) => ({ value: e, label: e }));

/** A notification rule's form: add (no row), edit, or read-only with the reason. */
export function RuleModal({
  row,
  readOnlyReason,
  isBusy,
  onSave,
  onDelete,
  onClose,
}: {
  row?: RuleRow;
  /** Why the rule cannot be changed here; editable when unset. */
  readOnlyReason?: string;
  isBusy: boolean;
  onSave(columns: RuleColumns): void;
  onDelete?(): Promise<unknown>;
  onClose(): void;
}) {
  const [form, setForm] = useState<RuleForm>(() => (row ? ruleForm(row) : EMPTY_RULE));
  const [errors, setErrors] = useState<RuleErrors>({});
  const options = useRecipientOptions(true);
  const disabled = Boolean(readOnlyReason);
  const set = <K extends keyof RuleForm>(key: K, value: RuleForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const submit = () => {
    if (disabled) return;
    const checked = ruleColumns(form);
    if ('errors' in checked) setErrors(checked.errors);
    else onSave(checked.columns);
  };
  const text = (
    key: 'name' | 'namespace' | 'title' | 'repeatInterval' | 'groupBy' | 'waitFor' | 'fallbackDelay',
    label: string,
    hint?: string,
  ) => (
    <FormGroup label={label} fieldId={`rule-${key}`} isRequired={key === 'name'}>
      <TextInput
        id={`rule-${key}`}
        value={form[key]}
        placeholder={hint}
        isDisabled={disabled || (key === 'name' && Boolean(row))}
        validated={key in errors && errors[key as keyof RuleErrors] ? 'error' : 'default'}
        onChange={(_e, v) => set(key, v)}
      />
      <FieldError text={errors[key as keyof RuleErrors]} />
    </FormGroup>
  );
  return (
    <FormModal
      id="notification-rule-form"
      title={row ? `Notification rule: ${row.name}` : 'Add notification rule'}
      variant="medium"
      onClose={onClose}
      onSubmit={submit}
      notice={readOnlyReason && <Alert variant="info" isInline isPlain title={readOnlyReason} />}
      cancelLabel={disabled ? 'Close' : 'Cancel'}
      actions={
        !disabled && (
          <>
            <Button type="submit" form="notification-rule-form" isLoading={isBusy} isDisabled={isBusy}>
              {row ? 'Update' : 'Save'}
            </Button>
            {row && onDelete && <DeleteButton title="Delete notification rule" message={`Delete ${row.name}?`} onConfirm={onDelete} />}
          </>
        )
      }
    >
      {text('name', 'Name')}
      {text('namespace', 'Namespace')}
      <FormGroup label="Events" fieldId="rule-events" isRequired>
        <MultiSelect
          id="rule-events"
          label="Events"
          options={EVENT_OPTIONS}
          values={form.events}
          isDisabled={disabled}
          isInvalid={Boolean(errors.events)}
          onToggle={(e) => set('events', form.events.includes(e) ? form.events.filter((x) => x !== e) : [...form.events, e])}
        />
        <FieldError text={errors.events} />
      </FormGroup>
      <FormGroup label="Filter" fieldId="rule-filter">
        <TextInput
          id="rule-filter"
          value={form.filter}
          placeholder="CEL, e.g. check.type == 'http'"
          isDisabled={disabled}
          onChange={(_e, v) => set('filter', v)}
        />
      </FormGroup>
      {text('title', 'Title')}
      <FormGroup label="Template" fieldId="rule-template">
        <TextArea
          id="rule-template"
          value={form.template}
          placeholder="Go template, e.g. {{ .check.name }} is {{ .check.status }}"
          isDisabled={disabled}
          resizeOrientation="vertical"
          onChange={(_e, v) => set('template', v)}
        />
      </FormGroup>
      <FormGroup label="Recipient" fieldId="rule-to" isRequired role="group">
        <RecipientField
          label="Recipient"
          value={form.to}
          options={options}
          isDisabled={disabled}
          isInvalid={Boolean(errors.to)}
          onChange={(v) => set('to', v)}
        />
        <FieldError text={errors.to} />
      </FormGroup>
      {text('repeatInterval', 'Repeat interval', 'e.g. 4h')}
      {text('groupBy', 'Group by', 'e.g. type, tag:namespace')}
      {text('waitFor', 'Wait for', 'e.g. 5m')}
      <FormGroup label="Fallback" fieldId="rule-fallback" role="group">
        <RecipientField
          label="Fallback recipient"
          value={form.fallback}
          options={options}
          isDisabled={disabled}
          onChange={(v) => set('fallback', v)}
        />
        <FormHelperText>
          <HelperText>
            <HelperTextItem>
              Sent when the delivery to the recipient fails (or its playbook run fails), after the fallback delay.
            </HelperTextItem>
          </HelperText>
        </FormHelperText>
      </FormGroup>
      {text('fallbackDelay', 'Fallback delay', 'e.g. 10m')}
      <InhibitionsField value={form.inhibitions} errors={errors} isDisabled={disabled} onChange={(v) => set('inhibitions', v)} />
    </FormModal>
  );
}
