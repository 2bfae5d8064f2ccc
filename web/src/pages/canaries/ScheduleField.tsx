import { FormGroup, MenuToggle, Select, SelectList, SelectOption, TextInputGroup, TextInputGroupMain } from '@patternfly/react-core';
import { useState } from 'react';
import { EDITOR_SCHEDULES } from './checkTypes';

const ID = 'canary-schedule';

/** Schedule: one of the editor's schedules, or any value typed in. */
export function ScheduleField({ value, onChange, isDisabled }: { value: string; onChange(value: string): void; isDisabled: boolean }) {
  const [isOpen, setOpen] = useState(false);
  const known = EDITOR_SCHEDULES.some((s) => s === value);
  const options = known || !value ? EDITOR_SCHEDULES : EDITOR_SCHEDULES.filter((s) => s.includes(value));
  return (
    <FormGroup label="Schedule" fieldId={ID}>
      <Select
        isOpen={isOpen && options.length > 0}
        selected={value}
        onOpenChange={setOpen}
        onSelect={(_e, v) => {
          onChange(String(v));
          setOpen(false);
        }}
        popperProps={{ appendTo: 'inline' }}
        toggle={(ref) => (
          <MenuToggle
            ref={ref}
            variant="typeahead"
            isFullWidth
            isExpanded={isOpen}
            isDisabled={isDisabled}
            onClick={() => setOpen(!isOpen)}
          >
            <TextInputGroup isPlain isDisabled={isDisabled}>
              <TextInputGroupMain
                inputId={ID}
                value={value}
                placeholder="Choose or type a schedule, e.g. @every 5m"
                role="combobox"
                aria-label="Schedule"
                isExpanded={isOpen}
                aria-controls={`${ID}-list`}
                inputProps={{ autoComplete: 'off' }}
                onClick={() => setOpen(!isOpen)}
                onChange={(_e, v) => {
                  onChange(v);
                  setOpen(true);
                }}
              />
            </TextInputGroup>
          </MenuToggle>
        )}
      >
        <SelectList id={`${ID}-list`} aria-label="Schedules">
          {options.map((s) => (
            <SelectOption key={s} value={s}>
              {s}
            </SelectOption>
          ))}
        </SelectList>
      </Select>
    </FormGroup>
  );
}
