import { PageSection, Title } from '@patternfly/react-core';

/** The insights list (being built: issue 18). */
export default function InsightsPage() {
  return (
    <PageSection>
      <Title headingLevel="h1">Insights</Title>
    </PageSection>
  );
}
