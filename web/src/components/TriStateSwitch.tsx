import { Flex, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { useId } from 'react';

/** Include (1), exclude (-1), or either (undefined). */
export type TriState = 1 | -1 | undefined;

const STATES: readonly [text: string, state: TriState][] = [
  ['Include', 1],
  ['Any', undefined],
  ['Exclude', -1],
];

interface TriStateSwitchProps {
  /** Shown beside the choices, like a switch's label, and the name of their group. */
  label: string;
  value: TriState;
  onChange(value: TriState): void;
  isDisabled?: boolean;
}

/** The tri-state switch (spec part 2 section 2.11): Include, Any or Exclude. */
export function TriStateSwitch({ label, value, onChange, isDisabled }: TriStateSwitchProps) {
  const labelId = useId();
  return (
    <Flex spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsCenter' }} flexWrap={{ default: 'nowrap' }}>
      <ToggleGroup isCompact aria-labelledby={labelId}>
        {STATES.map(([text, state]) => (
          <ToggleGroupItem key={text} text={text} isSelected={value === state} isDisabled={isDisabled} onChange={() => onChange(state)} />
        ))}
      </ToggleGroup>
      <span id={labelId}>{label}</span>
    </Flex>
  );
}
