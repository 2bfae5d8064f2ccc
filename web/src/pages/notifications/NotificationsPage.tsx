import { PageSection, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import { useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { PAGE_SIZES } from '../../app/preferences';
import { useTopBar } from '../../app/topBar';
import { FilterItem } from '../../components/FilterItem';
import { PagedFooter } from '../../components/PagedFooter';
import { RequireAccess } from '../../components/RequireAccess';
import { SearchBox } from '../../components/SearchBox';
import { SimpleSelect } from '../../components/Selects';
import { ALL, withAll, withFilterChanges } from '../../lib/searchChanges';
import { HistoryTable } from './HistoryTable';
import { NotificationsTabs } from './NotificationsTabs';
import { ALL_PAGE_SIZE, NOTIFICATIONS_PATH, RESOURCE_TYPES, SEND_STATUSES, historyParams } from './notificationModel';
import { useSendHistory } from './useNotificationsData';

/** The list's sizes; the last loads all of a busy day at once (spec part 1). */
export const HISTORY_PAGE_SIZES = [...PAGE_SIZES, ALL_PAGE_SIZE];

/** The filters and pager of a send history kept in the URL, and its page. */
export function useHistoryView(resourceId?: string) {
  const [search, setSearch] = useSearchParams();
  const params = useMemo(() => historyParams(search, PAGE_SIZES[0]), [search]);
  const history = useSendHistory(params, resourceId);
  const update = (changes: Record<string, string | number | undefined>, paging = false) =>
    setSearch((current) => withFilterChanges(current, changes, paging));
  const toolbar = (
    <Toolbar>
      <ToolbarContent>
        <ToolbarGroup variant="filter-group" role="group" aria-label="Filters">
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
        </ToolbarGroup>
        <PagedFooter
          label="Notifications pagination"
          total={history.data?.total ?? 0}
          page={params.page}
          pageSize={params.pageSize}
          pageSizes={HISTORY_PAGE_SIZES}
          onPage={(page) => update({ page }, true)}
          onPageSize={(pageSize) => update({ pageSize })}
          placement="toolbar"
        />
      </ToolbarContent>
    </Toolbar>
  );
  return { history, toolbar };
}

function Notifications() {
  const { history, toolbar } = useHistoryView();
  useTopBar('Notifications', history.refetch, history.isFetching);
  return (
    <PageSection>
      <NotificationsTabs active={NOTIFICATIONS_PATH} />
      {toolbar}
      <HistoryTable query={history} label="Notifications" />
    </PageSection>
  );
}

/** The send history, newest first; status, resource type, search and page in the URL. */
export default function NotificationsPage() {
  return (
    <RequireAccess resource="notifications" feature="settings.notifications">
      <Notifications />
    </RequireAccess>
  );
}
