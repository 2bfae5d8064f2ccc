import { Alert, Button, Content, FormGroup, TextArea, TextInput, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import PlusCircleIcon from '@patternfly/react-icons/dist/esm/icons/plus-circle-icon';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { DeleteButton } from '../../components/ConfirmDialog';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { MultiSelect, SimpleSelect } from '../../components/Selects';
import {
  RESOURCE_TYPES,
  canRemoveScope,
  emptyForm,
  emptyScope,
  fromEntry,
  hasErrors,
  toPayload,
  toggleResource,
  validate,
  type AccessScopeForm,
  type ResourceType,
} from '../../lib/accessScope';
import { isUiSource, readOnlyMessage } from '../../lib/source';
import { ScopeEditor } from './ScopeEditor';
import { useAccessScopeChoices, useAccessScopesData, type AccessScopeRow } from './useAccessScopesData';

function formOf(row: AccessScopeRow | undefined): AccessScopeForm {
  if (!row) return emptyForm();
  return {
    name: row.name,
    namespace: row.namespace,
    description: row.description ?? '',
    subjectKind: row.team_id ? 'team' : 'guest',
    personId: row.person_id ?? '',
    teamId: row.team_id ?? '',
    resources: [...row.resources],
    scopes: row.scopes.length > 0 ? row.scopes.map(fromEntry) : [emptyScope()],
  };
}

const RESOURCE_OPTIONS = RESOURCE_TYPES.map((r) => ({ value: r, label: r === '*' ? '* (all)' : r }));

/** Add or edit one access scope; rows not written from the console (Kubernetes CRDs) are read-only. */
export function AccessScopeModal({ row, onClose }: { row?: AccessScopeRow; onClose(): void }) {
  const isNew = !row;
  const readOnly = !isUiSource(row?.source);
  const [form, setForm] = useState(() => formOf(row));
  const [submitted, setSubmitted] = useState(false);
  const { create, update, remove } = useAccessScopesData();
  const choices = useAccessScopeChoices();
  const toast = useToast();
  const errors = submitted ? validate(form) : { scope: {} };
  const busy = create.isPending || update.isPending || remove.isPending;

  const set = (patch: Partial<AccessScopeForm>) => setForm((f) => ({ ...f, ...patch }));
  const fail = (error: unknown) => toast.error(errorMessage(error));

  const save = () => {
    setSubmitted(true);
    if (hasErrors(validate(form))) return;
    const payload = toPayload(form);
    if (row) {
      update.mutate({ id: row.id, payload }, { onSuccess: () => (toast.success('Access Scope updated'), onClose()), onError: fail });
    } else {
      create.mutate(payload, { onSuccess: () => (toast.success('Access Scope created'), onClose()), onError: fail });
    }
  };

  const guestOptions = choices.guests.map((p) => ({ value: p.id, label: p.email ?? p.name, description: p.email ? p.name : undefined }));
  const teamOptions = choices.teams.map((t) => ({ value: t.id, label: t.name }));
  const agentOptions = choices.agents.map((a) => ({ value: a.id, label: a.name }));

  return (
    <FormModal
      id="access-scope-form"
      title={isNew ? 'Add Access Scope' : 'Edit Access Scope'}
      variant="medium"
      onClose={onClose}
      onSubmit={() => {
        if (!readOnly) save();
      }}
      notice={readOnly && <Alert isInline variant="info" title={readOnlyMessage(row?.source)} className="pf-v6-u-mb-md" />}
      actions={
        <>
          {!readOnly && (
            <Button type="submit" form="access-scope-form" isLoading={create.isPending || update.isPending} isDisabled={busy}>
              {isNew ? 'Create' : 'Save'}
            </Button>
          )}
          {row && isUiSource(row.source) && (
            <DeleteButton
              title="Delete Access Scope"
              message="Are you sure you want to delete this access scope? This action cannot be undone."
              isDisabled={busy}
              onConfirm={() =>
                remove.mutateAsync(row.id).then(
                  () => (toast.success('Access Scope deleted'), onClose()),
                  (e: unknown) => fail(e),
                )
              }
            />
          )}
        </>
      }
      cancelLabel={readOnly ? 'Close' : 'Cancel'}
    >
      <FormGroup label="Name" fieldId="as-name" isRequired>
        <TextInput
          id="as-name"
          value={form.name}
          isDisabled={readOnly}
          validated={errors.name ? 'error' : 'default'}
          onChange={(_e, v) => set({ name: v })}
        />
        <FieldError text={errors.name} />
      </FormGroup>
      <FormGroup label="Namespace" fieldId="as-namespace">
        <TextInput id="as-namespace" value={form.namespace} isDisabled={readOnly} onChange={(_e, v) => set({ namespace: v })} />
      </FormGroup>
      <FormGroup label="Description" fieldId="as-description">
        <TextArea id="as-description" value={form.description} isDisabled={readOnly} onChange={(_e, v) => set({ description: v })} />
      </FormGroup>
      <FormGroup label="Subject" fieldId="as-subject" role="group" isRequired>
        <ToggleGroup aria-label="Subject type" className="pf-v6-u-mb-sm">
          <ToggleGroupItem
            text="Guest"
            buttonId="as-subject-guest"
            isSelected={form.subjectKind === 'guest'}
            isDisabled={readOnly}
            onChange={() => set({ subjectKind: 'guest', teamId: '' })}
          />
          <ToggleGroupItem
            text="Team"
            buttonId="as-subject-team"
            isSelected={form.subjectKind === 'team'}
            isDisabled={readOnly}
            onChange={() => set({ subjectKind: 'team', personId: '' })}
          />
        </ToggleGroup>
        {form.subjectKind === 'guest' ? (
          <SimpleSelect
            id="as-subject"
            label="Select guest"
            placeholder="Select a guest"
            options={guestOptions}
            value={form.personId}
            isDisabled={readOnly}
            isInvalid={Boolean(errors.subject)}
            onChange={(v) => set({ personId: v })}
          />
        ) : (
          <SimpleSelect
            id="as-subject"
            label="Select team"
            placeholder="Select a team"
            options={teamOptions}
            value={form.teamId}
            isDisabled={readOnly}
            isInvalid={Boolean(errors.subject)}
            onChange={(v) => set({ teamId: v })}
          />
        )}
        <FieldError text={errors.subject} />
      </FormGroup>
      <FormGroup label="Resources" fieldId="as-resources" isRequired>
        <MultiSelect
          id="as-resources"
          label="Resources"
          placeholder="Select resource types"
          options={RESOURCE_OPTIONS}
          values={form.resources}
          isDisabled={readOnly}
          isInvalid={Boolean(errors.resources)}
          onToggle={(v) => set({ resources: toggleResource(form.resources, v as ResourceType) })}
        />
        <FieldError text={errors.resources} />
      </FormGroup>
      <FormGroup label="Scopes" fieldId="as-scopes" role="group" isRequired>
        <Content component="small">
          Within one scope, the tags, agents and names given must all match. Between scopes, any one scope may match. Tags match when every
          given tag matches; agents match when any given agent matches.
        </Content>
        {form.scopes.map((scope, index) => (
          <ScopeEditor
            key={index}
            index={index}
            scope={scope}
            agents={agentOptions}
            error={errors.scope[index]}
            canRemove={canRemoveScope(form)}
            isDisabled={readOnly}
            onChange={(next) => set({ scopes: form.scopes.map((s, i) => (i === index ? next : s)) })}
            onRemove={() => canRemoveScope(form) && set({ scopes: form.scopes.filter((_, i) => i !== index) })}
          />
        ))}
        <FieldError text={errors.scopes} />
        {!readOnly && (
          <Button variant="link" icon={<PlusCircleIcon />} onClick={() => set({ scopes: [...form.scopes, emptyScope()] })}>
            Add scope
          </Button>
        )}
      </FormGroup>
    </FormModal>
  );
}
