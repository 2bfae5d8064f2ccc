import {
  ActionGroup,
  Button,
  Card,
  CardBody,
  CardTitle,
  Content,
  Form,
  FormGroup,
  FormSelect,
  FormSelectOption,
  Switch,
  TextInput,
} from '@patternfly/react-core';
import { useState } from 'react';
import { ROLES } from '../../api/rules.gen';
import { ApiError, errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { FieldError } from '../../components/FieldError';
import { useSignInSettings, type IdentitySettings, type SecondFactorRequired } from './useSignInSettings';

const NONE = '';
/** Registration never hands out admin (the API refuses it too). */
const REGISTRATION_ROLES = ROLES.filter((role) => role !== 'admin');

interface FormProps {
  initial: IdentitySettings;
  initialRequired: SecondFactorRequired;
  mailConnections: { id: string; ref: string }[];
  save: ReturnType<typeof useSignInSettings>['save'];
  canEdit: boolean;
}

function SettingsForm({ initial, initialRequired, mailConnections, save, canEdit }: FormProps) {
  const toast = useToast();
  const [form, setForm] = useState<IdentitySettings>(initial);
  const [domains, setDomains] = useState((initial.registrationDomains ?? []).join(', '));
  const [required, setRequired] = useState<SecondFactorRequired>(initialRequired);
  const disabled = !canEdit || save.isPending;
  const problem = (field: string) =>
    save.error instanceof ApiError ? save.error.fieldProblems.find((p) => p.field === field)?.message : undefined;
  const update = (patch: Partial<IdentitySettings>) => setForm((f) => ({ ...f, ...patch }));

  return (
    <Form
      aria-label="Sign-in and accounts"
      onSubmit={(event) => {
        event.preventDefault();
        const registrationDomains = domains
          .split(/[,\s]+/)
          .map((d) => d.trim())
          .filter(Boolean);
        save.mutate(
          { settings: { ...form, registrationDomains }, required },
          {
            onSuccess: () => toast.success('Sign-in settings saved'),
            onError: (e) => toast.error(errorMessage(e)),
          },
        );
      }}
    >
      <FormGroup label="Mail connection" fieldId="identity-mail">
        <FormSelect
          id="identity-mail"
          value={form.mailConnection ?? NONE}
          isDisabled={disabled}
          onChange={(_e, value) => update({ mailConnection: value === NONE ? null : value })}
        >
          <FormSelectOption value={NONE} label="None: recovery and verification by email are off" />
          {mailConnections.map((c) => (
            <FormSelectOption key={c.id} value={c.id} label={c.ref} />
          ))}
        </FormSelect>
        <FieldError text={problem('mailConnection')} />
      </FormGroup>
      <Switch
        id="identity-registration"
        label="Allow people to create their own account"
        isChecked={form.registrationEnabled}
        isDisabled={disabled}
        onChange={(_e, checked) => update({ registrationEnabled: checked })}
      />
      <FormGroup label="Registration domains" fieldId="identity-domains">
        <TextInput
          id="identity-domains"
          value={domains}
          placeholder="Any domain"
          isDisabled={disabled || !form.registrationEnabled}
          onChange={(_e, value) => setDomains(value)}
        />
        <FieldError text={problem('registrationDomains')} />
      </FormGroup>
      <FormGroup label="Role of new accounts" fieldId="identity-role">
        <FormSelect
          id="identity-role"
          value={form.registrationRole ?? 'viewer'}
          isDisabled={disabled || !form.registrationEnabled}
          onChange={(_e, value) => update({ registrationRole: value })}
        >
          {REGISTRATION_ROLES.map((role) => (
            <FormSelectOption key={role} value={role} label={role} />
          ))}
        </FormSelect>
        <FieldError text={problem('registrationRole')} />
      </FormGroup>
      <FormGroup label="Second factor required of" fieldId="identity-second-factor">
        <FormSelect
          id="identity-second-factor"
          value={required}
          isDisabled={disabled}
          onChange={(_e, value) => setRequired(value as SecondFactorRequired)}
        >
          <FormSelectOption value="nobody" label="Nobody" />
          <FormSelectOption value="admins" label="Admins" />
          <FormSelectOption value="everyone" label="Everyone" />
        </FormSelect>
      </FormGroup>
      {canEdit ? (
        <ActionGroup>
          <Button type="submit" isDisabled={disabled} isLoading={save.isPending}>
            Save sign-in settings
          </Button>
        </ActionGroup>
      ) : (
        <Content component="p">Only admins can change them.</Content>
      )}
    </Form>
  );
}

/** 'Sign-in and accounts': the mail connection of recovery and verification,
 * self-service registration, and who must have a second factor. Admins
 * change them; the server refuses anyone else whatever this shows. */
export function SignInSettings() {
  const { authorizer } = useSession();
  const { identity, secondFactor, mailConnections, save } = useSignInSettings();
  const failed = identity.error ?? secondFactor.error;
  return (
    <Card isCompact className="pf-v6-u-mb-md">
      <CardTitle component="h2">Sign-in and accounts</CardTitle>
      <CardBody>
        {identity.data && secondFactor.data ? (
          <SettingsForm
            initial={identity.data}
            initialRequired={secondFactor.data.required as SecondFactorRequired}
            mailConnections={mailConnections.data ?? []}
            save={save}
            canEdit={authorizer.isAdmin}
          />
        ) : null}
        {failed ? <Content component="p">{errorMessage(failed)}</Content> : null}
      </CardBody>
    </Card>
  );
}
