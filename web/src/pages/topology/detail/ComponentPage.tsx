import { useParams } from 'react-router';
import { RequireAccess } from '../../../components/RequireAccess';
import { PlaybooksMenu } from '../../playbooks/run/PlaybooksMenu';
import { ComponentView } from './ComponentView';

/** /topology/{id}: a component with its children, in the shell. */
export default function ComponentPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="topologies" feature="topology">
      <PlaybooksMenu target={{ component_id: id }} className="pf-v6-u-px-lg pf-v6-u-pt-md" />
      <ComponentView key={id} id={id} base="/topology" />
    </RequireAccess>
  );
}
