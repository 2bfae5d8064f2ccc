import {
  Alert,
  Bullseye,
  Button,
  Form,
  FormGroup,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  Spinner,
  Switch,
  TextArea,
} from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import type { Selected } from '../../api/db';
import { docsUrl } from '../../app/constants';
import { useToast } from '../../app/toast';
import { DeleteButton } from '../../components/ConfirmDialog';
import { FieldError } from '../../components/FieldError';
import { SimpleSelect } from '../../components/Selects';
import {
  GLOBAL_OBJECTS,
  RESOURCE_KINDS,
  SUBJECT_KINDS,
  SUBJECT_ROLES,
  actionsFor,
  emptyPermission,
  fromPermissionRow,
  toPermissionRow,
  validatePermission,
  withResourceKind,
  withSubjectKind,
  type PermissionErrors,
  type PermissionForm,
  type ResourceKind,
  type SubjectKind,
} from '../../lib/permission';
import { isUiSource, readOnlyMessage } from '../../lib/source';
import { useLookup, usePermission, usePermissionWrites } from './usePermissionsData';

function Editor({ row, onClose }: { row?: Selected<'permissions'>; onClose(): void }) {
  const [form, setForm] = useState<PermissionForm>(() => (row ? fromPermissionRow(row) : emptyPermission()));
  const [errors, setErrors] = useState<PermissionErrors>({});
  const { create, update, remove } = usePermissionWrites();
  const toast = useToast();
  const subjects = useLookup(form.subjectKind === 'role' ? '' : form.subjectKind);
  const resources = useLookup(form.resourceKind === 'global' ? '' : form.resourceKind);
  const readOnly = !isUiSource(row?.source);
  const busy = create.isPending || update.isPending || remove.isPending;
  const fail = (e: unknown) => toast.error(errorMessage(e));

  const save = () => {
    const problems = validatePermission(form);
    setErrors(problems);
    if (Object.keys(problems).length > 0) return;
    const fields = toPermissionRow(form);
    if (row)
      update.mutate({ id: row.id, row: fields }, { onSuccess: () => (toast.success('Permission updated'), onClose()), onError: fail });
    else create.mutate(fields, { onSuccess: () => (toast.success('Permission added'), onClose()), onError: fail });
  };

  const subjectOptions =
    form.subjectKind === 'role'
      ? SUBJECT_ROLES.map((r) => ({ value: r, label: r }))
      : (subjects.data ?? []).map((s) => ({ value: s.id, label: s.name ?? s.id, description: s.email ?? undefined }));
  const resourceOptions =
    form.resourceKind === 'global'
      ? GLOBAL_OBJECTS.map((o) => ({ value: o, label: o }))
      : (resources.data ?? []).map((r) => ({ value: r.id, label: r.name ?? r.id }));

  return (
    <>
      <ModalBody>
        {readOnly && <Alert isInline variant="info" title={readOnlyMessage(row?.source)} className="pf-v6-u-mb-md" />}
        <Form
          id="permission-form"
          onSubmit={(e) => {
            e.preventDefault();
            save();
          }}
        >
          <FormGroup label="Subject type" fieldId="perm-subject-kind">
            <SimpleSelect
              id="perm-subject-kind"
              label="Subject type"
              options={SUBJECT_KINDS}
              value={form.subjectKind}
              isDisabled={readOnly}
              onChange={(v) => setForm(withSubjectKind(form, v as SubjectKind))}
            />
          </FormGroup>
          <FormGroup label="Subject" fieldId="perm-subject" isRequired>
            <SimpleSelect
              id="perm-subject"
              label="Subject"
              placeholder="Select a subject"
              options={subjectOptions}
              value={form.subjectId}
              isDisabled={readOnly}
              isInvalid={Boolean(errors.subject)}
              onChange={(v) => setForm({ ...form, subjectId: v })}
            />
            <FieldError text={errors.subject} />
          </FormGroup>
          <FormGroup label="Resource type" fieldId="perm-resource-kind">
            {form.resourceKind === 'selector' ? (
              <pre aria-label="Resource selector">{JSON.stringify(row?.object_selector, null, 2)}</pre>
            ) : (
              <SimpleSelect
                id="perm-resource-kind"
                label="Resource type"
                options={RESOURCE_KINDS}
                value={form.resourceKind}
                isDisabled={readOnly}
                onChange={(v) => setForm(withResourceKind(form, v as ResourceKind))}
              />
            )}
          </FormGroup>
          {form.resourceKind !== 'selector' && (
            <FormGroup label="Resource" fieldId="perm-resource" isRequired>
              <SimpleSelect
                id="perm-resource"
                label="Resource"
                placeholder="Select a resource"
                options={resourceOptions}
                value={form.resourceKind === 'global' ? form.object : form.resourceId}
                isDisabled={readOnly}
                isInvalid={Boolean(errors.resource)}
                onChange={(v) => setForm(form.resourceKind === 'global' ? { ...form, object: v } : { ...form, resourceId: v })}
              />
              <FieldError text={errors.resource} />
            </FormGroup>
          )}
          <FormGroup label="Action" fieldId="perm-action" isRequired>
            <SimpleSelect
              id="perm-action"
              label="Action"
              options={actionsFor(form.resourceKind, form.object).map((a) => ({ value: a, label: a }))}
              value={form.action}
              isDisabled={readOnly}
              isInvalid={Boolean(errors.action)}
              onChange={(v) => setForm({ ...form, action: v })}
            />
            <FieldError text={errors.action} />
          </FormGroup>
          <FormGroup fieldId="perm-deny">
            <Switch
              id="perm-deny"
              label="Deny"
              isChecked={form.deny}
              isDisabled={readOnly}
              onChange={(_e, v) => setForm({ ...form, deny: v })}
            />
          </FormGroup>
          <FormGroup label="Description" fieldId="perm-description">
            <TextArea
              id="perm-description"
              value={form.description}
              isDisabled={readOnly}
              onChange={(_e, v) => setForm({ ...form, description: v })}
            />
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        {!readOnly && (
          <Button type="submit" form="permission-form" isLoading={create.isPending || update.isPending} isDisabled={busy}>
            {row ? 'Save' : 'Add'}
          </Button>
        )}
        {row && !readOnly && (
          <DeleteButton
            title="Delete Permission"
            message="Are you sure you want to delete the permission?"
            isDisabled={busy}
            onConfirm={() =>
              remove.mutateAsync(row.id).then(
                () => (toast.success('Permission deleted'), onClose()),
                (e: unknown) => fail(e),
              )
            }
          />
        )}
        <Button variant="link" onClick={onClose}>
          {readOnly ? 'Close' : 'Cancel'}
        </Button>
      </ModalFooter>
    </>
  );
}

/** Add Permission / Edit Permission; editing loads the full row first. */
export function PermissionModal({ id, onClose }: { id?: string; onClose(): void }) {
  const permission = usePermission(id);
  return (
    <Modal variant="medium" isOpen onClose={onClose} aria-labelledby="permission-title">
      <ModalHeader
        title={id ? 'Edit Permission' : 'Add Permission'}
        labelId="permission-title"
        help={
          <a href={docsUrl('/reference/permissions')} target="_blank" rel="noreferrer">
            Help
          </a>
        }
      />
      {id && permission.isLoading ? (
        <ModalBody>
          <Bullseye>
            <Spinner aria-label="Loading permission" />
          </Bullseye>
        </ModalBody>
      ) : id && !permission.data ? (
        <ModalBody>
          <Alert isInline variant="danger" title={permission.error ? errorMessage(permission.error) : 'Permission not found'} />
        </ModalBody>
      ) : (
        <Editor row={permission.data ?? undefined} onClose={onClose} />
      )}
    </Modal>
  );
}
