import { DropdownItem, DropdownList } from '@patternfly/react-core';
import QuestionCircleIcon from '@patternfly/react-icons/dist/esm/icons/question-circle-icon';
import { IconMenu } from '../components/IconMenu';
import { DOCS_URL } from './constants';

export function HelpMenu() {
  return (
    <IconMenu label="Help" icon={<QuestionCircleIcon />}>
      {() => (
        <DropdownList>
          <DropdownItem to={DOCS_URL} isExternalLink>
            Docs
          </DropdownItem>
        </DropdownList>
      )}
    </IconMenu>
  );
}
