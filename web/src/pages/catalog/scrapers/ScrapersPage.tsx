import { PageSection, Title } from '@patternfly/react-core';

/** The scrapers list (being built: issue 18). */
export default function ScrapersPage() {
  return (
    <PageSection>
      <Title headingLevel="h1">Scrapers</Title>
    </PageSection>
  );
}
