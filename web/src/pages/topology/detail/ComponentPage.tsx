import { Flex } from '@patternfly/react-core';
import { useParams } from 'react-router';
import { RequireAccess } from '../../../components/RequireAccess';
import { PlaybooksMenu } from '../../playbooks/run/PlaybooksMenu';
import { AttachEvidenceButton } from '../../incidents/link/AttachEvidenceButton';
import { ComponentView } from './ComponentView';

/** /topology/{id}: a component with its children, in the shell. */
export default function ComponentPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="topologies" feature="topology">
      <Flex className="pf-v6-u-px-lg pf-v6-u-pt-md" spaceItems={{ default: 'spaceItemsSm' }}>
        <PlaybooksMenu target={{ component_id: id }} />
        <AttachEvidenceButton subject={{ type: 'topology', component_id: id }} />
      </Flex>
      <ComponentView key={id} id={id} base="/topology" />
    </RequireAccess>
  );
}
