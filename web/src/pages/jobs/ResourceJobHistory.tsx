import { useState } from 'react';
import { JobHistoryTable } from './JobHistoryTable';
import { DEFAULT_SORT, type JobFilters } from './jobFilters';
import { useJobHistory } from './useJobHistoryData';

const PAGE_SIZE = 50;

/** The job history of one resource (e.g. a canary in the check editor): every
 * run of any status and time, newest first. */
export function ResourceJobHistory({ resourceId }: { resourceId: string }) {
  const [sort, setSort] = useState(DEFAULT_SORT);
  const [page, setPage] = useState({ pageIndex: 0, pageSize: PAGE_SIZE });
  const filters: JobFilters = { resourceId, status: {}, sort, ...page };
  const list = useJobHistory(filters);
  return (
    <JobHistoryTable
      label="Resource job history"
      rows={list.data?.rows ?? []}
      total={list.data?.total ?? 0}
      isLoading={list.isLoading}
      error={list.error}
      sort={sort}
      onSort={(next) => {
        setSort(next);
        setPage((p) => ({ ...p, pageIndex: 0 }));
      }}
      pageIndex={page.pageIndex}
      pageSize={page.pageSize}
      onPage={(pageIndex, pageSize) => setPage({ pageIndex, pageSize })}
      showResource={false}
    />
  );
}
