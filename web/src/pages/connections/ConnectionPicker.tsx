import { MenuToggle, Select, SelectList, SelectOption, TextInputGroup, TextInputGroupMain } from '@patternfly/react-core';
import { useState } from 'react';
import { useConnectionOptions, type ConnectionTypeId } from './useConnectionsData';

interface Props {
  id: string;
  /** The field's label, the input's accessible name. */
  label: string;
  /** Connection types that fit the field (catalogue ids). */
  types: readonly ConnectionTypeId[];
  value: string;
  onChange(value: string): void;
  isDisabled?: boolean;
  isInvalid?: boolean;
  onBlur?(): void;
}

/** A `connection://namespace/name` field: a typeahead over the saved
 * connections of fitting types that still takes any text typed. */
export function ConnectionPicker({ id, label, types, value, onChange, isDisabled, isInvalid, onBlur }: Props) {
  const [isOpen, setOpen] = useState(false);
  const options = useConnectionOptions(types);
  const typed = value.trim().toLowerCase();
  const matches = (options.data ?? []).filter((o) => !typed || o.ref.toLowerCase().includes(typed) || o.ref === value);
  const listId = `${id}-options`;
  return (
    <Select
      isOpen={isOpen && matches.length > 0}
      selected={value}
      onOpenChange={setOpen}
      onSelect={(_e, v) => {
        onChange(String(v));
        setOpen(false);
      }}
      popperProps={{ appendTo: 'inline' }}
      isScrollable
      maxMenuHeight="16rem"
      toggle={(ref) => (
        <MenuToggle
          ref={ref}
          variant="typeahead"
          isFullWidth
          isDisabled={isDisabled}
          isExpanded={isOpen}
          status={isInvalid ? 'danger' : undefined}
          onClick={() => setOpen(!isOpen)}
        >
          <TextInputGroup isPlain>
            <TextInputGroupMain
              inputId={id}
              aria-label={label}
              value={value}
              placeholder="connection://namespace/name"
              autoComplete="off"
              role="combobox"
              isExpanded={isOpen}
              aria-controls={listId}
              onClick={() => setOpen(true)}
              onBlur={onBlur}
              onChange={(_e, v) => {
                onChange(v);
                setOpen(true);
              }}
            />
          </TextInputGroup>
        </MenuToggle>
      )}
    >
      <SelectList id={listId} aria-label="Connections">
        {matches.map((o) => (
          <SelectOption key={o.id} value={o.ref} description={o.type}>
            {o.ref}
          </SelectOption>
        ))}
      </SelectList>
    </Select>
  );
}
