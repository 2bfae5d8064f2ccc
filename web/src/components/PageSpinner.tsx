import { Bullseye, Spinner } from '@patternfly/react-core';

export function PageSpinner() {
  return (
    <Bullseye className="qd-page-spinner">
      <Spinner aria-label="Loading" />
    </Bullseye>
  );
}
