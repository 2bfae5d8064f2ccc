import {
  Alert,
  Button,
  Checkbox,
  ClipboardCopy,
  Form,
  FormGroup,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  TextInput,
} from '@patternfly/react-core';
import { useState } from 'react';
import { ApiError, errorMessage } from '../../api/errors';
import type { Schemas } from '../../api/client';
import { useToast } from '../../app/toast';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { SimpleSelect } from '../../components/Selects';
import type { Role } from '../../api/rules.gen';
import { isRole, SUBJECT_ROLES } from '../../lib/permission';
import type { useUsersData } from './useUsersData';

type Data = ReturnType<typeof useUsersData>;

/** A one-time link to hand over (there is no mail server). */
export function LinkModal({ title, text, link, onClose }: { title: string; text: string; link: string; onClose(): void }) {
  return (
    <Modal variant="medium" isOpen onClose={onClose} aria-labelledby="link-title">
      <ModalHeader title={title} labelId="link-title" />
      <ModalBody>
        <Alert isInline variant="info" title={text} className="pf-v6-u-mb-md" />
        <ClipboardCopy isReadOnly hoverTip="Copy" clickTip="Copied" copyAriaLabel="Copy link" textAriaLabel="One-time link">
          {link}
        </ClipboardCopy>
      </ModalBody>
      <ModalFooter>
        <Button onClick={onClose}>Close</Button>
      </ModalFooter>
    </Modal>
  );
}

export function InviteModal({ data, onClose }: { data: Data; onClose(): void }) {
  const [form, setForm] = useState<Schemas['InviteUser']>({ firstName: '', lastName: '', email: '', role: 'viewer' });
  const [link, setLink] = useState<string>();
  const toast = useToast();
  const problem = data.invite.error instanceof ApiError ? data.invite.error.fieldProblems[0] : undefined;
  const errorOf = (field: string) => (problem?.field === field ? problem.message : undefined);

  if (link) {
    return (
      <LinkModal
        title="User invited"
        text={`Send this one-time link to ${form.email}: it lets them choose a password and sign in.`}
        link={link}
        onClose={onClose}
      />
    );
  }
  const set = (patch: Partial<Schemas['InviteUser']>) => setForm((f) => ({ ...f, ...patch }));
  return (
    <FormModal
      id="invite-form"
      title="Invite User"
      onClose={onClose}
      onSubmit={() =>
        data.invite.mutate(form, { onSuccess: (r) => setLink(r.payload.link), onError: (err) => toast.error(errorMessage(err)) })
      }
      actions={
        <Button type="submit" form="invite-form" isLoading={data.invite.isPending} isDisabled={data.invite.isPending}>
          Invite
        </Button>
      }
    >
      <FormGroup label="First name" fieldId="invite-first" isRequired>
        <TextInput id="invite-first" isRequired value={form.firstName} onChange={(_e, v) => set({ firstName: v })} />
        <FieldError text={errorOf('firstName')} />
      </FormGroup>
      <FormGroup label="Last name" fieldId="invite-last">
        <TextInput id="invite-last" value={form.lastName} onChange={(_e, v) => set({ lastName: v })} />
      </FormGroup>
      <FormGroup label="Email" fieldId="invite-email" isRequired>
        <TextInput id="invite-email" type="email" isRequired value={form.email} onChange={(_e, v) => set({ email: v })} />
        <FieldError text={errorOf('email')} />
      </FormGroup>
      <FormGroup label="Role" fieldId="invite-role" isRequired>
        <SimpleSelect
          id="invite-role"
          label="Role"
          options={SUBJECT_ROLES.map((r) => ({ value: r, label: r }))}
          value={form.role}
          onChange={(v) => isRole(v) && set({ role: v })}
        />
      </FormGroup>
    </FormModal>
  );
}

export function RolesModal({ data, person, onClose }: { data: Data; person: Schemas['PersonWithRoles']; onClose(): void }) {
  const [roles, setRoles] = useState<Role[]>(person.roles.filter(isRole));
  const toast = useToast();
  const save = () =>
    data.setRoles.mutate(
      { id: person.id, roles },
      { onSuccess: () => (toast.success(`${person.name} updated successfully`), onClose()), onError: (e) => toast.error(errorMessage(e)) },
    );
  return (
    <Modal variant="small" isOpen onClose={onClose} aria-labelledby="roles-title">
      <ModalHeader title={`Roles of ${person.name}`} labelId="roles-title" />
      <ModalBody>
        <Form>
          <FormGroup label="Roles" fieldId="roles" role="group" isStack>
            {SUBJECT_ROLES.map((role) => (
              <Checkbox
                key={role}
                id={`role-${role}`}
                label={role}
                isChecked={roles.includes(role)}
                onChange={(_e, checked) => setRoles((r) => (checked ? [...r, role] : r.filter((x) => x !== role)))}
              />
            ))}
          </FormGroup>
        </Form>
      </ModalBody>
      <ModalFooter>
        <Button onClick={save} isLoading={data.setRoles.isPending} isDisabled={data.setRoles.isPending}>
          Save
        </Button>
        <Button variant="link" onClick={onClose}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}
