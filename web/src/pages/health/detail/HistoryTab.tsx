import { Label, Toolbar, ToolbarContent, ToolbarItem } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import CheckCircleIcon from '@patternfly/react-icons/dist/esm/icons/check-circle-icon';
import ExclamationCircleIcon from '@patternfly/react-icons/dist/esm/icons/exclamation-circle-icon';
import type { UseQueryResult } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { Schemas } from '../../../api/client';
import { errorMessage } from '../../../api/errors';
import { useToast } from '../../../app/toast';
import { DateTime } from '../../../components/DateTime';
import { DurationFilter } from '../../../components/DurationFilter';
import { PagedFooter } from '../../../components/PagedFooter';
import { SimpleSelect } from '../../../components/Selects';
import { TableStateRow } from '../../../components/TableStates';
import { formatLatency } from '../../../lib/healthFormat';
import { HISTORY_PAGE_SIZE, type HistoryFilter } from './useCheckDetailData';

const COLUMNS = ['Time', 'Duration', 'Status', 'Message'];
const PAGE_SIZES = [HISTORY_PAGE_SIZE];
const STATUS_OPTIONS = [
  { value: 'all', label: 'All' },
  { value: '1', label: 'Healthy' },
  { value: '0', label: 'Unhealthy' },
];

function StatusLabel({ passed }: { passed: boolean }) {
  return passed ? (
    <Label isCompact color="green" icon={<CheckCircleIcon />}>
      Healthy
    </Label>
  ) : (
    <Label isCompact color="red" icon={<ExclamationCircleIcon />}>
      Unhealthy
    </Label>
  );
}

/** A check's runs, newest first, 50 a page, filtered by status and minimum
 * duration; any filter change goes back to the first page. */
export function HistoryTab({
  history,
  filter,
  onFilterChange,
}: {
  history: UseQueryResult<Schemas['StatusHistory']>;
  filter: HistoryFilter;
  onFilterChange(filter: HistoryFilter): void;
}) {
  const toast = useToast();
  const { error } = history;
  useEffect(() => {
    if (error) toast.error(errorMessage(error));
  }, [error, toast]);

  const entries = history.data?.data ?? [];
  const total = history.data?.totalEntries ?? 0;
  const refilter = (patch: Omit<HistoryFilter, 'page'>) => onFilterChange({ ...filter, ...patch, page: 1 });

  return (
    <>
      <Toolbar>
        <ToolbarContent>
          <ToolbarItem className="qd-check-filter">
            <span aria-hidden>Status</span>
            <SimpleSelect
              label="Status"
              options={STATUS_OPTIONS}
              value={filter.status === undefined ? 'all' : String(filter.status)}
              onChange={(v) => refilter({ status: v === '1' ? 1 : v === '0' ? 0 : undefined })}
            />
          </ToolbarItem>
          <ToolbarItem className="qd-check-filter">
            <span aria-hidden>Duration</span>
            <DurationFilter value={filter.durationMs} onChange={(durationMs) => refilter({ durationMs })} />
          </ToolbarItem>
          <PagedFooter
            total={total}
            page={filter.page}
            pageSize={HISTORY_PAGE_SIZE}
            pageSizes={PAGE_SIZES}
            onPage={(page) => onFilterChange({ ...filter, page })}
            placement="toolbar"
          />
        </ToolbarContent>
      </Toolbar>
      <Table aria-label="Status history" variant="compact">
        <Thead>
          <Tr>
            {COLUMNS.map((c) => (
              <Th key={c}>{c}</Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={COLUMNS.length}
            isLoading={history.isLoading}
            error={history.error}
            errorTitle="Error loading status history"
            isEmpty={entries.length === 0}
          />
          {entries.map((entry) => (
            <Tr key={entry.time}>
              <Td dataLabel="Time">
                <DateTime value={entry.time} />
              </Td>
              <Td dataLabel="Duration">{formatLatency(entry.duration)}</Td>
              <Td dataLabel="Status">
                <StatusLabel passed={entry.status} />
              </Td>
              <Td dataLabel="Message" modifier="breakWord">
                {entry.message}
                {entry.error && <div className="qd-check-error">{entry.error}</div>}
              </Td>
            </Tr>
          ))}
        </Tbody>
      </Table>
    </>
  );
}
