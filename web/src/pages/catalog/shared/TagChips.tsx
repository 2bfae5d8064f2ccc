import { Label } from '@patternfly/react-core';
import { sortTags } from './tags';

/** Tags (or labels) as `key:value` chips in the spec's order; the full text is
 * the chip's tooltip (a `title`: a table shows hundreds of chips). */
export function TagChips({ tags, label }: { tags: Readonly<Record<string, unknown>> | null | undefined; label: string }) {
  const entries = sortTags(tags);
  if (entries.length === 0) return null;
  return (
    <span className="qd-label-list" role="list" aria-label={label}>
      {entries.map(([key, value]) => (
        <span role="listitem" key={key} title={`${key}: ${value}`}>
          <Label isCompact>
            {key}:{value}
          </Label>
        </span>
      ))}
    </span>
  );
}

/** Tags (or labels) in a row of their own under a header; nothing when there are none. */
export function TagRow({ tags, label }: { tags: Readonly<Record<string, unknown>>; label: string }) {
  if (Object.keys(tags).length === 0) return null;
  return (
    <div className="pf-v6-u-mt-sm">
      <TagChips tags={tags} label={label} />
    </div>
  );
}
