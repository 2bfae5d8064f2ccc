import { PageSection, Title } from '@patternfly/react-core';

/** A scraper's page (being built: issue 18). */
export default function ScraperPage() {
  return (
    <PageSection>
      <Title headingLevel="h1">Scraper</Title>
    </PageSection>
  );
}
