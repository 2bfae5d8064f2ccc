/** The changes table with its filters and diff viewer; on an item's page
 * `configId` limits it to that item (being built: issue 18). */
export function ChangesView({ configId }: { configId?: string }) {
  return <p>Changes{configId ? ` of ${configId}` : ''}</p>;
}
