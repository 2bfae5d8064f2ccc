import { PageSection, Title } from '@patternfly/react-core';

/** The catalog's items (being built: issue 18). */
export default function CatalogPage() {
  return (
    <PageSection>
      <Title headingLevel="h1">Catalog</Title>
    </PageSection>
  );
}
