import { PageSection } from '@patternfly/react-core';
import { useParams } from 'react-router';
import { useTopBar } from '../../app/topBar';
import { RequireAccess } from '../../components/RequireAccess';
import { HistoryTable } from './HistoryTable';
import { useHistoryView } from './NotificationsPage';

function ResourceNotifications({ resourceId }: { resourceId: string }) {
  const { history, toolbar } = useHistoryView(resourceId);
  useTopBar('Notifications', history.refetch, history.isFetching);
  return (
    <PageSection>
      {toolbar}
      <HistoryTable query={history} label="Notifications of the resource" />
    </PageSection>
  );
}

/** The sends about one resource, newest first. */
export default function ResourceNotificationsPage() {
  const { resourceId = '' } = useParams();
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <ResourceNotifications resourceId={resourceId} />
    </RequireAccess>
  );
}
