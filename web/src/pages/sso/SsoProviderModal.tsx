import {
  Button,
  ClipboardCopy,
  FormGroup,
  FormHelperText,
  HelperText,
  HelperTextItem,
  Split,
  SplitItem,
  Switch,
  TextInput,
} from '@patternfly/react-core';
import MinusCircleIcon from '@patternfly/react-icons/dist/esm/icons/minus-circle-icon';
import PlusCircleIcon from '@patternfly/react-icons/dist/esm/icons/plus-circle-icon';
import { useState } from 'react';
import { ROLES } from '../../api/rules.gen';
import { ApiError, errorMessage } from '../../api/errors';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { SimpleSelect } from '../../components/Selects';
import { EMPTY_FORM, bodyOf, formField, formOf, type SsoForm } from './ssoForm';
import type { SsoProvider, SsoProvidersData } from './useSsoProvidersData';

/** 'Add Provider' or 'Edit Provider': the OpenID Connect client settings and
 * the groups mapped to roles and teams. The client secret is write-only: left
 * blank when editing, the stored one stays. */
export function SsoProviderModal({ provider, data, onClose }: { provider?: SsoProvider; data: SsoProvidersData; onClose(): void }) {
  const [form, setForm] = useState<SsoForm>(() => (provider ? formOf(provider) : EMPTY_FORM));
  const set = <K extends keyof SsoForm>(key: K, value: SsoForm[K]) => setForm((f) => ({ ...f, [key]: value }));
  const save = provider ? data.update : data.create;
  const problem = save.error instanceof ApiError ? save.error.fieldProblems[0] : undefined;
  const fieldError = (name: keyof SsoForm) => (problem && formField(problem.field) === name ? problem.message : undefined);
  const generalError = save.error && !problem ? errorMessage(save.error) : undefined;
  const targets = [
    ...ROLES.map((r) => ({ value: `role:${r}`, label: `Role: ${r}` })),
    ...(data.teams.data ?? []).map((t) => ({ value: `team:${t.id}`, label: `Team: ${t.name}` })),
  ];
  const submit = () => {
    const body = bodyOf(form);
    if (provider) data.update.mutate({ slug: provider.slug, body }, { onSuccess: onClose });
    else data.create.mutate(body, { onSuccess: onClose });
  };
  const text = (name: keyof SsoForm, label: string, options: { required?: boolean; type?: 'text' | 'password'; helper?: string } = {}) => (
    <FormGroup label={label} fieldId={`sso-${name}`} isRequired={options.required}>
      <TextInput
        id={`sso-${name}`}
        type={options.type ?? 'text'}
        isRequired={options.required}
        value={form[name] as string}
        validated={fieldError(name) ? 'error' : 'default'}
        onChange={(_e, v) => set(name, v as never)}
        autoComplete="off"
      />
      {options.helper && !fieldError(name) && (
        <FormHelperText>
          <HelperText>
            <HelperTextItem>{options.helper}</HelperTextItem>
          </HelperText>
        </FormHelperText>
      )}
      <FieldError text={fieldError(name)} />
    </FormGroup>
  );
  return (
    <FormModal
      id="sso-provider-form"
      title={provider ? 'Edit Provider' : 'Add Provider'}
      variant="medium"
      onClose={onClose}
      onSubmit={submit}
      notice={generalError ? <FieldError text={generalError} /> : undefined}
      actions={
        <Button type="submit" form="sso-provider-form" isLoading={save.isPending} isDisabled={save.isPending}>
          {provider ? 'Save' : 'Create'}
        </Button>
      }
    >
      {text('label', 'Label', { required: true, helper: 'The sign-in button says "Sign in with" this.' })}
      {text('slug', 'Slug', { required: true, helper: 'Lower-case letters, digits and dashes; part of the callback URL.' })}
      {provider && (
        <FormGroup label="Redirect URI" fieldId="sso-redirect-uri">
          <ClipboardCopy isReadOnly id="sso-redirect-uri" hoverTip="Copy" clickTip="Copied">
            {provider.redirect_uri}
          </ClipboardCopy>
        </FormGroup>
      )}
      {text('issuer', 'Issuer URL', { required: true, helper: 'Its /.well-known/openid-configuration is read.' })}
      {text('clientId', 'Client ID', { required: true })}
      {text('clientSecret', 'Client secret', {
        required: !provider,
        type: 'password',
        helper: provider ? 'Leave blank to keep the stored secret.' : undefined,
      })}
      {text('scopes', 'Scopes', { helper: 'Separated by spaces; openid is required.' })}
      {text('groupsClaim', 'Groups claim', { helper: 'The claim holding groups or roles, e.g. groups or realm_access.roles.' })}
      <FormGroup label="Default role" fieldId="sso-default-role">
        <SimpleSelect
          id="sso-default-role"
          label="Default role"
          value={form.defaultRole}
          placeholder="None"
          options={[{ value: '', label: 'None' }, ...ROLES.map((r) => ({ value: r, label: r }))]}
          onChange={(v) => set('defaultRole', v)}
          isInvalid={!!fieldError('defaultRole')}
        />
        <FieldError text={fieldError('defaultRole')} />
      </FormGroup>
      <Switch
        id="sso-create-people"
        label="Create people on first sign-in (verified email only)"
        isChecked={form.createPeople}
        onChange={(_e, v) => set('createPeople', v)}
      />
      <Switch id="sso-enabled" label="Enabled on the sign-in page" isChecked={form.enabled} onChange={(_e, v) => set('enabled', v)} />
      <FormGroup label="Group mappings" fieldId="sso-mappings" role="group">
        {form.mappings.map((m, i) => (
          <Split hasGutter key={i} className="pf-v6-u-mb-sm">
            <SplitItem isFilled>
              <TextInput
                aria-label={`Group ${i + 1}`}
                value={m.group}
                onChange={(_e, v) =>
                  set(
                    'mappings',
                    form.mappings.map((x, j) => (j === i ? { ...x, group: v } : x)),
                  )
                }
              />
            </SplitItem>
            <SplitItem isFilled>
              <SimpleSelect
                label={`What group ${i + 1} gives`}
                value={m.target}
                options={targets}
                onChange={(v) =>
                  set(
                    'mappings',
                    form.mappings.map((x, j) => (j === i ? { ...x, target: v } : x)),
                  )
                }
              />
            </SplitItem>
            <SplitItem>
              <Button
                variant="plain"
                aria-label={`Remove mapping ${i + 1}`}
                icon={<MinusCircleIcon />}
                onClick={() =>
                  set(
                    'mappings',
                    form.mappings.filter((_, j) => j !== i),
                  )
                }
              />
            </SplitItem>
          </Split>
        ))}
        <Button
          variant="link"
          icon={<PlusCircleIcon />}
          onClick={() => set('mappings', [...form.mappings, { group: '', target: 'role:viewer' }])}
        >
          Add mapping
        </Button>
        <FieldError text={fieldError('mappings')} />
      </FormGroup>
    </FormModal>
  );
}
