import { MenuToggle, Select, SelectList, SelectOption, TextInputGroup, TextInputGroupMain } from '@patternfly/react-core';
import { useState } from 'react';
import type { Pick } from './linkForm';

const NEW = '\u0000new';

interface Props {
  id: string;
  /** The input's accessible name. */
  label: string;
  /** What the user typed. */
  text: string;
  onText(text: string): void;
  options: readonly { id: string; title: string; description?: string }[];
  /** The option offering to create one from the typed text, e.g. `Create incident "X"`. */
  createLabel(text: string): string;
  onPick(pick: Pick | null): void;
  isInvalid?: boolean;
}

/** A typeahead that picks an existing row or a new one named by the typed text. */
export function PickField({ id, label, text, onText, options, createLabel, onPick, isInvalid }: Props) {
  const [isOpen, setOpen] = useState(false);
  const typed = text.trim();
  const listId = `${id}-options`;
  return (
    <Select
      isOpen={isOpen}
      onOpenChange={setOpen}
      onSelect={(_e, v) => {
        const value = String(v);
        const found = options.find((o) => o.id === value);
        if (value === NEW) onPick({ kind: 'new', title: typed });
        else if (found) {
          onText(found.title);
          onPick({ kind: 'existing', id: found.id, title: found.title });
        }
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
          isExpanded={isOpen}
          status={isInvalid ? 'danger' : undefined}
          onClick={() => setOpen(!isOpen)}
        >
          <TextInputGroup isPlain>
            <TextInputGroupMain
              inputId={id}
              aria-label={label}
              value={text}
              placeholder="Search or create"
              autoComplete="off"
              role="combobox"
              isExpanded={isOpen}
              aria-controls={listId}
              onClick={() => setOpen(true)}
              onChange={(_e, v) => {
                onText(v);
                onPick(null);
                setOpen(true);
              }}
            />
          </TextInputGroup>
        </MenuToggle>
      )}
    >
      <SelectList id={listId} aria-label={label}>
        {typed && (
          <SelectOption key={NEW} value={NEW}>
            {createLabel(typed)}
          </SelectOption>
        )}
        {options.map((o) => (
          <SelectOption key={o.id} value={o.id} description={o.description}>
            {o.title}
          </SelectOption>
        ))}
        {!typed && options.length === 0 && (
          <SelectOption isDisabled value="">
            Start typing to search
          </SelectOption>
        )}
      </SelectList>
    </Select>
  );
}
