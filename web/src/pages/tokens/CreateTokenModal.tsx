import { Button, FormGroup, Switch, TextInput, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useState } from 'react';
import { ApiError } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { FieldError } from '../../components/FieldError';
import { FormModal } from '../../components/FormModal';
import { SimpleSelect } from '../../components/Selects';
import {
  DEFAULT_EXPIRY,
  EXPIRY_OPTIONS,
  PRESETS,
  TOKEN_OBJECTS,
  actionsOf,
  isValidTokenName,
  levelOf,
  levelsFor,
  mcpSetupActions,
  presetActions,
  toGrants,
  type Expiry,
  type Preset,
  type ScopeActions,
} from '../../lib/tokenScopes';
import { useCreateToken } from './useTokensData';

export interface CreatedToken {
  name: string;
  token: string;
}

/** 'Create new token': name, expiry, auto renew and scopes. For MCP setup
 * the scopes start at Custom with every mcp action. */
export function CreateTokenModal({
  forMcp = false,
  onCreated,
  onClose,
}: {
  forMcp?: boolean;
  onCreated(token: CreatedToken): void;
  onClose(): void;
}) {
  const create = useCreateToken();
  const { user } = useSession();
  const toast = useToast();
  const [name, setName] = useState('');
  const [touched, setTouched] = useState(false);
  const [expiry, setExpiry] = useState<Expiry>(DEFAULT_EXPIRY);
  const [autoRenew, setAutoRenew] = useState(false);
  const [preset, setPreset] = useState<Preset>(forMcp ? 'Custom' : 'Read');
  const [actions, setActions] = useState<ScopeActions>(() => (forMcp ? mcpSetupActions() : presetActions('Read')));
  const valid = isValidTokenName(name);
  const serverProblem = create.error instanceof ApiError ? create.error.fieldProblems.find((p) => p.field === 'name')?.message : undefined;

  const choosePreset = (next: Preset) => {
    setPreset(next);
    if (next !== 'Custom') setActions(presetActions(next));
  };

  const submit = () => {
    setTouched(true);
    if (!valid) return;
    create.mutate(
      { name: name.trim(), expiry, autoRenew, scope: toGrants(actions, user.id) },
      {
        onSuccess: (r) => {
          toast.success('Token created successfully');
          onCreated({ name: name.trim(), token: r.payload.token });
        },
        onError: (e) => toast.error(e instanceof Error && e.message ? e.message : 'Failed to create token'),
      },
    );
  };

  return (
    <FormModal
      id="create-token-form"
      title="Create new token"
      variant="medium"
      onClose={onClose}
      onSubmit={() => submit()}
      actions={
        <Button type="submit" form="create-token-form" isDisabled={!valid || create.isPending}>
          {create.isPending ? 'Creating...' : 'Create Token'}
        </Button>
      }
    >
      <FormGroup label="Name" fieldId="token-name" isRequired>
        <TextInput
          id="token-name"
          value={name}
          validated={touched && !valid ? 'error' : 'default'}
          onBlur={() => setTouched(true)}
          onChange={(_e, v) => setName(v)}
        />
        <FieldError text={touched && !valid ? 'Name is required' : serverProblem} />
      </FormGroup>
      <FormGroup label="Expiry" fieldId="token-expiry">
        <SimpleSelect id="token-expiry" label="Expiry" options={EXPIRY_OPTIONS} value={expiry} onChange={(v) => setExpiry(v as Expiry)} />
      </FormGroup>
      <FormGroup fieldId="token-auto-renew">
        <Switch id="token-auto-renew" label="Auto Renew" isChecked={autoRenew} onChange={(_e, v) => setAutoRenew(v)} />
      </FormGroup>
      <FormGroup label="Scopes" fieldId="token-scopes" role="group">
        <ToggleGroup aria-label="Scope preset">
          {PRESETS.map((p) => (
            <ToggleGroupItem key={p} text={p} buttonId={`token-preset-${p}`} isSelected={preset === p} onChange={() => choosePreset(p)} />
          ))}
        </ToggleGroup>
        {preset === 'Custom' && (
          <Table aria-label="Scope per object" variant="compact" className="pf-v6-u-mt-sm">
            <Thead>
              <Tr>
                <Th>Object</Th>
                <Th>Access</Th>
              </Tr>
            </Thead>
            <Tbody>
              {TOKEN_OBJECTS.map((object) => (
                <Tr key={object}>
                  <Td dataLabel="Object">{object}</Td>
                  <Td dataLabel="Access">
                    <SimpleSelect
                      label={`${object} access`}
                      placeholder="Custom"
                      options={levelsFor(object).map((l) => ({ value: l.level, label: l.level }))}
                      value={levelOf(object, actions[object]) ?? ''}
                      onChange={(level) => setActions((a) => ({ ...a, [object]: actionsOf(object, level) }))}
                    />
                  </Td>
                </Tr>
              ))}
            </Tbody>
          </Table>
        )}
      </FormGroup>
    </FormModal>
  );
}
