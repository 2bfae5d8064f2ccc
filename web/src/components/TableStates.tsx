import { Bullseye, EmptyState, EmptyStateBody, Spinner } from '@patternfly/react-core';
import { Td, Tr } from '@patternfly/react-table';
import { errorMessage } from '../api/errors';

/** One full-width row for loading, failure ('{title}' plus the message) or no rows. */
export function TableStateRow({
  colSpan,
  isLoading,
  error,
  errorTitle,
  isEmpty,
}: {
  colSpan: number;
  isLoading: boolean;
  error: unknown;
  errorTitle: string;
  isEmpty: boolean;
}) {
  if (!isLoading && !error && !isEmpty) return null;
  return (
    <Tr>
      <Td colSpan={colSpan}>
        <Bullseye>
          {isLoading ? (
            <Spinner size="lg" aria-label="Loading" />
          ) : error ? (
            <EmptyState titleText={errorTitle} headingLevel="h3" status="danger" variant="sm">
              <EmptyStateBody>{errorMessage(error)}</EmptyStateBody>
            </EmptyState>
          ) : (
            <EmptyState titleText="No data available" headingLevel="h3" variant="sm" />
          )}
        </Bullseye>
      </Td>
    </Tr>
  );
}
