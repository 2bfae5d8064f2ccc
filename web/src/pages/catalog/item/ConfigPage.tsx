import { PageSection, Title } from '@patternfly/react-core';

/** A config item's page (being built: issue 18). */
export default function ConfigPage() {
  return (
    <PageSection>
      <Title headingLevel="h1">Config item</Title>
    </PageSection>
  );
}
