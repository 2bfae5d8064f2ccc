import { Button, Flex, FlexItem, TextArea, TextInput, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { VALUE_SOURCES, type SecretState } from './connectionForm';

interface Props {
  id: string;
  label: string;
  /** Several lines (a kubeconfig, a private key): a text area instead of a masked input. */
  multiline?: boolean;
  state: SecretState;
  isDisabled: boolean;
  isInvalid: boolean;
  onChange(state: SecretState): void;
  onBlur(): void;
}

/** A secret-valued field: a static value (write-only: a stored one shows as
 * "Value set" with Replace), or a Secret or ConfigMap key reference. */
export function SecretField({ id, label, multiline, state, isDisabled, isInvalid, onChange, onBlur }: Props) {
  const validated = isInvalid ? 'error' : 'default';
  const ref = (part: 'name' | 'key', value: string) => onChange({ ...state, ref: { ...state.ref, [part]: value } });
  const kind = state.source === 'secret' ? 'Secret' : 'ConfigMap';
  return (
    <>
      <ToggleGroup isCompact aria-label={`${label} value source`} className="pf-v6-u-mb-sm">
        {VALUE_SOURCES.map((s) => (
          <ToggleGroupItem
            key={s.id}
            text={s.label}
            buttonId={`${id}-source-${s.id}`}
            isSelected={state.source === s.id}
            isDisabled={isDisabled}
            onChange={() => onChange({ ...state, source: s.id })}
          />
        ))}
      </ToggleGroup>
      {state.source === 'static' ? (
        state.stored && !state.value ? (
          <Flex alignItems={{ default: 'alignItemsCenter' }}>
            <FlexItem id={id}>Value set</FlexItem>
            {!isDisabled && (
              <FlexItem>
                <Button variant="link" isInline aria-label={`Replace ${label}`} onClick={() => onChange({ ...state, stored: false })}>
                  Replace
                </Button>
              </FlexItem>
            )}
          </Flex>
        ) : multiline ? (
          <TextArea
            id={id}
            rows={4}
            resizeOrientation="vertical"
            className="pf-v6-u-font-family-monospace"
            value={state.value}
            isDisabled={isDisabled}
            validated={validated}
            onBlur={onBlur}
            onChange={(_e, value) => onChange({ ...state, value })}
          />
        ) : (
          <TextInput
            id={id}
            type="password"
            autoComplete="new-password"
            value={state.value}
            isDisabled={isDisabled}
            validated={validated}
            onBlur={onBlur}
            onChange={(_e, value) => onChange({ ...state, value })}
          />
        )
      ) : (
        <Flex>
          <FlexItem grow={{ default: 'grow' }}>
            <TextInput
              id={id}
              aria-label={`${label} ${kind} name`}
              placeholder={`${kind} name`}
              value={state.ref.name}
              isDisabled={isDisabled}
              validated={isInvalid && !state.ref.name.trim() ? 'error' : 'default'}
              onBlur={onBlur}
              onChange={(_e, v) => ref('name', v)}
            />
          </FlexItem>
          <FlexItem grow={{ default: 'grow' }}>
            <TextInput
              aria-label={`${label} ${kind} key`}
              placeholder="Key"
              value={state.ref.key}
              isDisabled={isDisabled}
              validated={isInvalid && !state.ref.key.trim() ? 'error' : 'default'}
              onBlur={onBlur}
              onChange={(_e, v) => ref('key', v)}
            />
          </FlexItem>
        </Flex>
      )}
    </>
  );
}
