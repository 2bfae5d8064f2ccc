import { Form, FormGroup, MenuItemAction, MenuToggle, Select, SelectList, SelectOption, Switch } from '@patternfly/react-core';
import BanIcon from '@patternfly/react-icons/dist/esm/icons/ban-icon';
import { useState } from 'react';
import { TriStateSwitch, type TriState } from '../../components/TriStateSwitch';
import { labelId, labelSelectionText, type LabelChoice } from './healthFilter';
import type { LabelFilter } from './healthParams';

type SetLabel = (id: string, state: TriState) => void;

/** A label's values: choosing one includes it, its ban action excludes it. */
function LabelSelect({ choice, labels, onChange }: { choice: LabelChoice; labels: LabelFilter; onChange: SetLabel }) {
  const [isOpen, setOpen] = useState(false);
  const stateOf = (value: string) => labels[labelId(choice.key, value)];
  const included = choice.values.filter((v) => stateOf(v) === 1);
  const excluded = choice.values.filter((v) => stateOf(v) === -1);
  return (
    <Select
      isOpen={isOpen}
      selected={included}
      onOpenChange={setOpen}
      onSelect={(_e, value) => onChange(labelId(choice.key, String(value)), stateOf(String(value)) === 1 ? undefined : 1)}
      isScrollable
      maxMenuHeight="20rem"
      popperProps={{ appendTo: 'inline' }}
      toggle={(ref) => (
        <MenuToggle
          ref={ref}
          id={`label-${choice.key}`}
          aria-label={`Filter by ${choice.key}`}
          isFullWidth
          isExpanded={isOpen}
          onClick={() => setOpen(!isOpen)}
        >
          {labelSelectionText(included, excluded)}
        </MenuToggle>
      )}
    >
      <SelectList aria-label={choice.key}>
        {choice.values.map((value) => {
          const state = stateOf(value);
          return (
            <SelectOption
              key={value}
              value={value}
              hasCheckbox
              isSelected={state === 1}
              description={state === -1 ? 'Excluded' : undefined}
              actions={
                <MenuItemAction
                  icon={<BanIcon />}
                  aria-label={`${state === -1 ? 'Stop excluding' : 'Exclude'} ${value}`}
                  onClick={() => onChange(labelId(choice.key, value), state === -1 ? undefined : -1)}
                />
              }
            >
              {value}
            </SelectOption>
          );
        })}
      </SelectList>
    </Select>
  );
}

interface HealthFiltersProps {
  hidePassing: boolean;
  labels: LabelFilter;
  choices: readonly LabelChoice[];
  onHidePassing(value: boolean): void;
  onLabels(labels: LabelFilter): void;
}

/** The filter sidebar: Hide Passing and a filter per label key. */
export function HealthFilters({ hidePassing, labels, choices, onHidePassing, onLabels }: HealthFiltersProps) {
  const setLabel: SetLabel = (id, state) => {
    const others = Object.entries(labels).filter(([key]) => key !== id);
    onLabels(Object.fromEntries(state === undefined ? others : [...others, [id, state]]));
  };
  return (
    <Form className="qd-health-filters" onSubmit={(e) => e.preventDefault()}>
      <FormGroup fieldId="health-hide-passing">
        <Switch id="health-hide-passing" label="Hide Passing" isChecked={hidePassing} onChange={(_e, v) => onHidePassing(v)} />
      </FormGroup>
      {choices.map((choice) => {
        if (!choice.isBoolean)
          return (
            <FormGroup key={choice.key} label={choice.key} fieldId={`label-${choice.key}`}>
              <LabelSelect choice={choice} labels={labels} onChange={setLabel} />
            </FormGroup>
          );
        // Include checks where the label is true, exclude them, or either.
        const id = labelId(choice.key, 'true');
        return (
          <FormGroup key={choice.key}>
            <TriStateSwitch label={choice.key} value={labels[id]} onChange={(state) => setLabel(id, state)} />
          </FormGroup>
        );
      })}
    </Form>
  );
}
