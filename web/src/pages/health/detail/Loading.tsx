import { Bullseye, Spinner } from '@patternfly/react-core';

/** A spinner centred in a section of the check detail. */
export function Loading() {
  return (
    <Bullseye>
      <Spinner size="lg" aria-label="Loading" />
    </Bullseye>
  );
}
