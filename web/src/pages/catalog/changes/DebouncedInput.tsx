import { SearchInput } from '@patternfly/react-core';
import { useEffect, useRef, useState } from 'react';
import { useDebounced } from '../../../app/useDebounced';

/** A text filter that writes `onChange` once typing has paused for 400 ms,
 * and follows `value` when it changes elsewhere (Back, a reset). */
export function DebouncedInput({
  label,
  value,
  placeholder,
  onChange,
}: {
  label: string;
  value: string;
  placeholder?: string;
  onChange(value: string): void;
}) {
  const [text, setText] = useState(value);
  const settled = useDebounced(text, 400);
  const sent = useRef(settled);
  useEffect(() => {
    if (settled === sent.current) return;
    sent.current = settled;
    if (settled !== value) onChange(settled);
  }, [settled, value, onChange]);
  const [shown, setShown] = useState(value);
  if (shown !== value) {
    setShown(value);
    setText(value);
  }
  return (
    <SearchInput
      aria-label={label}
      placeholder={placeholder ?? label}
      value={text}
      onChange={(_e, next) => setText(next)}
      onClear={() => setText('')}
    />
  );
}
