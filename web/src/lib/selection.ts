/** The text of a multi-select toggle: the chosen labels, or a count once
 * four or more are chosen (spec part 2 section 9). */
export function selectionText(labels: readonly string[], placeholder: string): string {
  if (labels.length === 0) return placeholder;
  if (labels.length >= 4) return `${labels.length} selected`;
  return labels.join(', ');
}
