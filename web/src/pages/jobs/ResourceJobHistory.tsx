/** Placeholder until the per-resource job history lands. */
export function ResourceJobHistory({ resourceId }: { resourceId: string }) {
  return <span hidden>{resourceId}</span>;
}
