import { Dropdown, DropdownItem, DropdownList, MenuToggle } from '@patternfly/react-core';
import QuestionCircleIcon from '@patternfly/react-icons/dist/esm/icons/question-circle-icon';
import { useState } from 'react';
import { DOCS_URL } from './constants';

export function HelpMenu() {
  const [isOpen, setOpen] = useState(false);
  return (
    <Dropdown
      isOpen={isOpen}
      onOpenChange={setOpen}
      popperProps={{ position: 'right' }}
      toggle={(ref) => (
        <MenuToggle
          ref={ref}
          variant="plain"
          aria-label="Help"
          icon={<QuestionCircleIcon />}
          isExpanded={isOpen}
          onClick={() => setOpen(!isOpen)}
        />
      )}
    >
      <DropdownList>
        <DropdownItem to={DOCS_URL} isExternalLink>
          Docs
        </DropdownItem>
      </DropdownList>
    </Dropdown>
  );
}
