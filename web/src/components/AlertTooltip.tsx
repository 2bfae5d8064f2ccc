import type { TooltipProps } from '@patternfly/react-core';
import { lazy, Suspense } from 'react';

const PfTooltip = lazy(() => import('@patternfly/react-core/dist/esm/components/Tooltip/Tooltip.js').then((m) => ({ default: m.Tooltip })));

/** PatternFly's Tooltip, loaded when first shown; the build hands it to
 * PatternFly's Alert in place of the Tooltip it imports (vite.config.ts). */
export function Tooltip(props: TooltipProps) {
  return (
    <Suspense fallback={props.children}>
      <PfTooltip {...props} />
    </Suspense>
  );
}
