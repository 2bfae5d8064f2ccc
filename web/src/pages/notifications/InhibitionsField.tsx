import { Button, Checkbox, Flex, FlexItem, FormGroup, FormHelperText, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';
import MinusCircleIcon from '@patternfly/react-icons/dist/esm/icons/minus-circle-icon';
import PlusCircleIcon from '@patternfly/react-icons/dist/esm/icons/plus-circle-icon';
import { FieldError } from '../../components/FieldError';
import { SimpleSelect } from '../../components/Selects';
import { EMPTY_INHIBITION, INHIBITION_DIRECTIONS, type InhibitionDirection, type InhibitionForm } from './notificationModel';

type TextKey = 'from' | 'to' | 'depth';

/** A rule's inhibitions, one row each: the inhibiting resource type, the types it inhibits, the
 * direction and depth of the relationships followed, and whether soft relationships count. */
export function InhibitionsField({
  value,
  errors,
  isDisabled,
  onChange,
}: {
  value: InhibitionForm[];
  /** By `inhibitions[i].field`. */
  errors: Record<string, string | undefined>;
  isDisabled?: boolean;
  onChange(value: InhibitionForm[]): void;
}) {
  const change = (i: number, patch: Partial<InhibitionForm>) => onChange(value.map((row, j) => (j === i ? { ...row, ...patch } : row)));
  const text = (i: number, key: TextKey, label: string, placeholder: string) => {
    const error = errors[`inhibitions[${i}].${key}`];
    return (
      <FlexItem grow={key === 'depth' ? undefined : { default: 'grow' }}>
        <TextInput
          aria-label={`Inhibition ${i + 1} ${label}`}
          type={key === 'depth' ? 'number' : 'text'}
          min={key === 'depth' ? 1 : undefined}
          value={value[i]?.[key] ?? ''}
          placeholder={placeholder}
          isDisabled={isDisabled}
          validated={error ? 'error' : 'default'}
          onChange={(_e, v) => change(i, { [key]: v })}
        />
        <FieldError text={error} />
      </FlexItem>
    );
  };
  return (
    <FormGroup label="Inhibitions" fieldId="rule-inhibitions" role="group">
      {value.map((row, i) => (
        <Flex key={i} alignItems={{ default: 'alignItemsFlexStart' }} role="group" aria-label={`Inhibition ${i + 1}`}>
          {text(i, 'from', 'from', 'From type, e.g. Kubernetes::Deployment')}
          {text(i, 'to', 'to', 'To types, e.g. Kubernetes::Pod, Kubernetes::ReplicaSet')}
          <FlexItem>
            <SimpleSelect
              label={`Inhibition ${i + 1} direction`}
              options={INHIBITION_DIRECTIONS}
              value={row.direction}
              isDisabled={isDisabled}
              onChange={(v) => change(i, { direction: v as InhibitionDirection })}
            />
          </FlexItem>
          {text(i, 'depth', 'depth', 'Depth')}
          <FlexItem>
            <Checkbox
              id={`rule-inhibition-${i}-soft`}
              label="Soft"
              aria-label={`Inhibition ${i + 1} soft`}
              isChecked={row.soft}
              isDisabled={isDisabled}
              onChange={(_e, soft) => change(i, { soft })}
            />
          </FlexItem>
          {!isDisabled && (
            <FlexItem>
              <Button
                variant="plain"
                aria-label={`Remove inhibition ${i + 1}`}
                icon={<MinusCircleIcon />}
                onClick={() => onChange(value.filter((_, j) => j !== i))}
              />
            </FlexItem>
          )}
        </Flex>
      ))}
      {!isDisabled && (
        <Button variant="link" isInline icon={<PlusCircleIcon />} onClick={() => onChange([...value, EMPTY_INHIBITION])}>
          Add inhibition
        </Button>
      )}
      <FormHelperText>
        <HelperText>
          <HelperTextItem>
            A send about a resource of a &lsquo;to&rsquo; type is held while a related resource of the &lsquo;from&rsquo; type has one
            within the repeat interval, or an hour (relationships followed in the direction, up to the depth, 1 by default; soft: soft
            relationships too).
          </HelperTextItem>
        </HelperText>
      </FormHelperText>
    </FormGroup>
  );
}
