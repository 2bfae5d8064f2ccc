import { EmptyState, PageSection } from '@patternfly/react-core';

/** Placeholder until issue 19's screen lands (replaced by its helper). */
export default function TopologyPage() {
  return (
    <PageSection>
      <EmptyState titleText="Topology" headingLevel="h2" />
    </PageSection>
  );
}
