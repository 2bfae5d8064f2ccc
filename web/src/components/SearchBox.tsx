import { SearchInput } from '@patternfly/react-core';
import { useEffect, useRef, useState } from 'react';

/** Debounce of search boxes (spec part 2, constants). */
export const SEARCH_DEBOUNCE_MS = 400;

/** A search box over a URL parameter: the URL follows the text 400 ms after
 * typing stops (at once when cleared), and the text follows the URL when
 * something else changes it (a link, Back, a reset). */
export function SearchBox({
  label,
  placeholder,
  value,
  onChange,
  describedBy,
}: {
  /** The accessible name; also the placeholder when there is none. */
  label: string;
  placeholder?: string;
  value: string;
  onChange(value: string): void;
  /** The id of a hint below the box. */
  describedBy?: string;
}) {
  const [text, setText] = useState(value);
  const [sent, setSent] = useState(value);
  const [seen, setSeen] = useState(value);
  const timer = useRef<number>(undefined);
  if (value !== seen) {
    setSeen(value);
    if (value !== sent) {
      setSent(value);
      setText(value);
    }
  }
  useEffect(() => () => window.clearTimeout(timer.current), []);
  const change = (next: string, delay: number) => {
    setText(next);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => {
      setSent(next);
      onChange(next);
    }, delay);
  };
  return (
    <SearchInput
      aria-label={label}
      aria-describedby={describedBy}
      placeholder={placeholder ?? label}
      value={text}
      onChange={(_e, next) => change(next, SEARCH_DEBOUNCE_MS)}
      onClear={() => change('', 0)}
    />
  );
}
