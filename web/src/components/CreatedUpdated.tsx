import { DescriptionListDescription, DescriptionListGroup, DescriptionListTerm } from '@patternfly/react-core';
import { DateTime } from './DateTime';

/** A resource's Created (with who, when known) and Updated groups, inside a `DescriptionList`. */
export function CreatedUpdated({
  row,
}: {
  row: { created_at: string | null; updated_at: string | null; created_by?: { name: string } | null };
}) {
  return (
    <>
      <DescriptionListGroup>
        <DescriptionListTerm>Created</DescriptionListTerm>
        <DescriptionListDescription>
          <DateTime value={row.created_at} />
          {row.created_by ? ` by ${row.created_by.name}` : ''}
        </DescriptionListDescription>
      </DescriptionListGroup>
      <DescriptionListGroup>
        <DescriptionListTerm>Updated</DescriptionListTerm>
        <DescriptionListDescription>
          <DateTime value={row.updated_at} />
        </DescriptionListDescription>
      </DescriptionListGroup>
    </>
  );
}
