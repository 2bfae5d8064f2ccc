import { Flex, FlexItem, HelperText, HelperTextItem, TextInput } from '@patternfly/react-core';
import { useId, useState, type FormEvent } from 'react';
import { DURATION_PRESETS, durationLabel, parseDuration } from '../lib/durationFilter';
import { SimpleSelect } from './Selects';

const ALL = 'all';
const CUSTOM = 'custom';
const OPTIONS = [
  { value: ALL, label: 'All' },
  ...DURATION_PRESETS.map((p) => ({ value: p.label, label: p.label })),
  { value: CUSTOM, label: 'Custom' },
];

interface Props {
  /** The minimum duration in milliseconds; none for All. */
  value?: number;
  onChange(ms?: number): void;
}

/** The minimum duration: All, a preset, or a custom value applied on Enter
 * or leaving the field (an invalid one shows the error and is not applied). */
export function DurationFilter(props: Props) {
  // A new value (chosen here or from outside, e.g. the URL) starts afresh, so
  // the custom text always reads what is applied.
  return <DurationControls key={props.value ?? ALL} {...props} />;
}

function DurationControls({ value, onChange }: Props) {
  const errorId = useId();
  const preset = value === undefined ? ALL : DURATION_PRESETS.find((p) => p.ms === value)?.label;
  const [isCustom, setCustom] = useState(preset === undefined);
  const [text, setText] = useState(value !== undefined && preset === undefined ? durationLabel(value) : '');
  const [error, setError] = useState<string>();

  const choose = (option: string) => {
    setError(undefined);
    if (option === CUSTOM) {
      setCustom(true);
      return;
    }
    setCustom(false);
    onChange(DURATION_PRESETS.find((p) => p.label === option)?.ms);
  };
  const apply = (event?: FormEvent) => {
    event?.preventDefault();
    const parsed = parseDuration(text);
    if ('error' in parsed) {
      setError(parsed.error);
      return;
    }
    setError(undefined);
    if (parsed.ms !== value) onChange(parsed.ms);
  };

  return (
    <Flex spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsFlexStart' }} flexWrap={{ default: 'nowrap' }}>
      <FlexItem>
        <SimpleSelect label="Duration" options={OPTIONS} value={isCustom ? CUSTOM : (preset ?? CUSTOM)} onChange={choose} />
      </FlexItem>
      {isCustom && (
        <FlexItem>
          <form onSubmit={apply}>
            <TextInput
              aria-label="Custom duration"
              placeholder="e.g. 1500ms or 2s"
              value={text}
              onChange={(_e, v) => setText(v)}
              onBlur={() => text && apply()}
              validated={error ? 'error' : 'default'}
              aria-invalid={Boolean(error)}
              aria-describedby={error ? errorId : undefined}
            />
            {error && (
              <HelperText id={errorId}>
                <HelperTextItem variant="error">{error}</HelperTextItem>
              </HelperText>
            )}
          </form>
        </FlexItem>
      )}
    </Flex>
  );
}
