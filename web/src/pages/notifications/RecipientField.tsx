import { Flex, FlexItem, TextInput } from '@patternfly/react-core';
import { SimpleSelect, type Option } from '../../components/Selects';
import { RECIPIENT_KINDS, type Recipient, type RecipientKind } from './notificationModel';
import type { useRecipientOptions } from './useNotificationsData';

type Options = ReturnType<typeof useRecipientOptions>;

function choices(kind: RecipientKind, options: Options): Option[] | undefined {
  switch (kind) {
    case 'person':
      return (options.people.data ?? []).map((p) => ({ value: p.id, label: p.name || (p.email ?? p.id) }));
    case 'team':
      return (options.teams.data ?? []).map((t) => ({ value: t.id, label: t.name }));
    case 'playbook':
      return (options.playbooks.data ?? []).map((p) => ({ value: p.id, label: p.name }));
    case 'connection':
      return (options.connections.data ?? []).map((c) => ({
        value: `connection://${c.namespace}/${c.name}`,
        label: `${c.namespace}/${c.name}`,
        description: c.type,
      }));
    case 'url':
      return undefined;
  }
}

/** A recipient: its kind, then the person, team, connection or playbook from a list, or a notification URL. */
export function RecipientField({
  label,
  value,
  options,
  isDisabled,
  isInvalid,
  onChange,
}: {
  label: string;
  value: Recipient;
  options: Options;
  isDisabled?: boolean;
  isInvalid?: boolean;
  onChange(value: Recipient): void;
}) {
  const list = choices(value.kind, options);
  return (
    <Flex>
      <FlexItem>
        <SimpleSelect
          label={`${label} type`}
          options={RECIPIENT_KINDS}
          value={value.kind}
          isDisabled={isDisabled}
          onChange={(kind) => onChange({ kind: kind as RecipientKind, value: '' })}
        />
      </FlexItem>
      <FlexItem grow={{ default: 'grow' }}>
        {list ? (
          <SimpleSelect
            label={label}
            options={list}
            value={value.value}
            isDisabled={isDisabled}
            isInvalid={isInvalid}
            onChange={(v) => onChange({ ...value, value: v })}
          />
        ) : (
          <TextInput
            aria-label={label}
            placeholder="e.g. slack://token@channel or generic+https://host/hook"
            value={value.value}
            isDisabled={isDisabled}
            validated={isInvalid ? 'error' : 'default'}
            onChange={(_e, v) => onChange({ ...value, value: v })}
          />
        )}
      </FlexItem>
    </Flex>
  );
}
