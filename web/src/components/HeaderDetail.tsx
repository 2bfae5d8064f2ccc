import { DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import type { ReactNode } from 'react';

/** One term of a page header's description list, a group named by its term. */
export function HeaderDetail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <DescriptionListGroup role="group" aria-label={term}>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription>{children}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}
