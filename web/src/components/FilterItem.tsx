import { ToolbarItem } from '@patternfly/react-core';
import type { ReactNode } from 'react';

/** A toolbar filter: its label, then the control. With `isLabelHidden` the
 * label is for screen readers only (the control shows it as its placeholder). */
export function FilterItem({ label, isLabelHidden, children }: { label: string; isLabelHidden?: boolean; children: ReactNode }) {
  return isLabelHidden ? (
    <ToolbarItem>
      <span className="pf-v6-u-screen-reader">{label}</span>
      {children}
    </ToolbarItem>
  ) : (
    <>
      <ToolbarItem variant="label">{label}</ToolbarItem>
      <ToolbarItem>{children}</ToolbarItem>
    </>
  );
}
