import { Dropdown, MenuToggle } from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';

/** A plain icon toggle (with `text` beside the icon) opening a menu aligned to
 * its right; `children` gets a way to close the menu. */
export function IconMenu({
  label,
  icon,
  text,
  children,
}: {
  label: string;
  icon: ReactNode;
  text?: ReactNode;
  children(close: () => void): ReactNode;
}) {
  const [isOpen, setOpen] = useState(false);
  return (
    <Dropdown
      isOpen={isOpen}
      onOpenChange={setOpen}
      popperProps={{ position: 'right' }}
      toggle={(ref) => (
        <MenuToggle ref={ref} variant="plain" aria-label={label} icon={icon} isExpanded={isOpen} onClick={() => setOpen(!isOpen)}>
          {text}
        </MenuToggle>
      )}
    >
      {children(() => setOpen(false))}
    </Dropdown>
  );
}
