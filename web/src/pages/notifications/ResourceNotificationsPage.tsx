import { PageSection } from '@patternfly/react-core';
import { useParams } from 'react-router';
import { RequireAccess } from '../../components/RequireAccess';
import { SendHistoryList } from './NotificationsPage';

/** The sends about one resource, newest first, also after it was deleted. */
export default function ResourceNotificationsPage() {
  const { resourceId = '' } = useParams();
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <PageSection>
        <SendHistoryList label="Notifications of the resource" resourceId={resourceId} />
      </PageSection>
    </RequireAccess>
  );
}
