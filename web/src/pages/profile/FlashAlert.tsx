import { Alert } from '@patternfly/react-core';
import type { Flash } from './useFlash';

export function FlashAlert({ flash }: { flash?: Flash }) {
  if (!flash) return null;
  return <Alert isInline isPlain variant={flash.variant} title={flash.text} />;
}
