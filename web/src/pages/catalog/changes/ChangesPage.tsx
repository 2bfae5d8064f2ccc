import { PageSection, Title } from '@patternfly/react-core';

/** The changes feed (being built: issue 18). */
export default function ChangesPage() {
  return (
    <PageSection>
      <Title headingLevel="h1">Changes</Title>
    </PageSection>
  );
}
