import { Label } from '@patternfly/react-core';

export function CrdBadge({ source }: { source: string | null | undefined }) {
  return source === 'KubernetesCRD' ? (
    <Label isCompact color="purple">
      CRD
    </Label>
  ) : null;
}

/** Labels in a row. Plain Labels: a LabelGroup measures its overflow, which
 * costs too much in tables of many rows. */
export function LabelList({ items, label }: { items: readonly string[]; label: string }) {
  return (
    <span className="qd-label-list" role="list" aria-label={label}>
      {items.map((item) => (
        <span role="listitem" key={item}>
          <Label isCompact>{item}</Label>
        </span>
      ))}
    </span>
  );
}
