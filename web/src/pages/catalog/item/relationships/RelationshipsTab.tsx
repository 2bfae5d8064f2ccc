/** The graph of an item's related configs (being built: issue 18). */
export function RelationshipsTab({ configId }: { configId: string }) {
  return <p>Relationships of {configId}</p>;
}
