/** The text of a multi-select toggle: the chosen labels, or a count once
 * four or more are chosen. */
export function selectionText(labels: readonly string[], placeholder: string): string {
  if (labels.length === 0) return placeholder;
  if (labels.length >= 4) return `${labels.length} selected`;
  return labels.join(', ');
}

/** `values` with `value` added, or taken out when it is there (a multi-select's toggle). */
export const toggled = (values: readonly string[], value: string): string[] =>
  values.includes(value) ? values.filter((v) => v !== value) : [...values, value];
