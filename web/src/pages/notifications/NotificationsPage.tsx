import { Checkbox, PageSection, ToolbarItem } from '@patternfly/react-core';
import { PAGE_SIZES } from '../../app/preferences';
import { useTopBar } from '../../app/topBar';
import { FilterItem } from '../../components/FilterItem';
import { PagedList, useListSearch } from '../../components/PagedList';
import { RequireAccess } from '../../components/RequireAccess';
import { SearchBox } from '../../components/SearchBox';
import { SimpleSelect } from '../../components/Selects';
import { ALL, withAll } from '../../lib/searchChanges';
import { HISTORY_COLUMNS, useSilenceAction } from './HistoryTable';
import { NotificationsTabs } from './NotificationsTabs';
import { ALL_PAGE_SIZE, NOTIFICATIONS_PATH, RESOURCE_TYPES, SEND_STATUSES, historyParams } from './notificationModel';
import { useSendHistory } from './useNotificationsData';

/** The list's sizes; the last loads all of a busy day at once (spec part 1). */
export const HISTORY_PAGE_SIZES = [...PAGE_SIZES, ALL_PAGE_SIZE];

const parseHistory = (search: URLSearchParams) => historyParams(search, PAGE_SIZES[0]);

/** A page of sends through `POST /api/notification/summary`, its filters and pager kept in the URL;
 * with `resourceId` the sends about that resource only. */
export function SendHistoryList({ label, resourceId }: { label: string; resourceId?: string }) {
  const [params, update] = useListSearch(parseHistory);
  const history = useSendHistory(params, resourceId);
  const silence = useSilenceAction();
  useTopBar('Notifications', history.refetch, history.isFetching);
  return (
    <PagedList
      aria-label={label}
      columns={HISTORY_COLUMNS}
      query={history}
      errorTitle="Failed to load notifications"
      rowKey={(send) => send.id}
      actions={silence}
      filters={
        <>
          <FilterItem label="Status">
            <SimpleSelect
              label="Status"
              options={withAll(SEND_STATUSES)}
              value={params.status ?? ALL}
              onChange={(v) => update({ status: v })}
            />
          </FilterItem>
          {!resourceId && (
            <FilterItem label="Resource type">
              <SimpleSelect
                label="Resource type"
                options={withAll(RESOURCE_TYPES)}
                value={params.resourceType ?? ALL}
                onChange={(v) => update({ resourceType: v })}
              />
            </FilterItem>
          )}
          <ToolbarItem>
            <SearchBox
              label="Search notifications"
              placeholder="Search"
              value={params.search ?? ''}
              onChange={(v) => update({ search: v })}
            />
          </ToolbarItem>
          {!resourceId && (
            <ToolbarItem>
              <Checkbox
                id="notifications-include-deleted"
                label="Include deleted resources"
                isChecked={params.includeDeleted}
                onChange={(_e, checked) => update({ includeDeletedResources: checked ? 'true' : undefined })}
              />
            </ToolbarItem>
          )}
        </>
      }
      pager={{
        page: params.page,
        pageSize: params.pageSize,
        pageSizes: HISTORY_PAGE_SIZES,
        onPage: (page) => update({ page }, true),
        onPageSize: (pageSize) => update({ pageSize }),
      }}
    />
  );
}

function Notifications() {
  return (
    <PageSection>
      <NotificationsTabs active={NOTIFICATIONS_PATH} />
      <SendHistoryList label="Notifications" />
    </PageSection>
  );
}

/** The send history, newest first; status, resource type, search, deleted resources and page in the URL. */
export default function NotificationsPage() {
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <Notifications />
    </RequireAccess>
  );
}
