/** The insights table with its filters; on an item's page `configId` limits
 * it to that item (being built: issue 18). */
export function InsightsView({ configId }: { configId?: string }) {
  return <p>Insights{configId ? ` of ${configId}` : ''}</p>;
}
