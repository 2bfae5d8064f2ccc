import { Button, Label, Skeleton } from '@patternfly/react-core';
import AngleDownIcon from '@patternfly/react-icons/dist/esm/icons/angle-down-icon';
import AngleRightIcon from '@patternfly/react-icons/dist/esm/icons/angle-right-icon';
import { Table, Tbody, Td, Th, Thead, Tr, type ThProps } from '@patternfly/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { TableStateRow } from '../../components/TableStates';
import type { CheckSummary } from './healthFilter';
import { HEALTH_CELL_MIN_AGE_MS, formatLatency, relativeAge, rowLatency, uptimePercent } from '../../lib/healthFormat';
import type { CheckGroup, HealthRow } from './healthGroups';
import type { SortColumn } from './healthParams';
import { CheckIcon } from './detail/CheckIcon';
import { StatusDot } from './StatusDot';

/** Virtual scroll (decision 14.6). */
const ROW_HEIGHT = 35;
const OVERSCAN = 10;
const SKELETON_ROWS = 8;

const COLUMNS: { title: string; sort?: SortColumn; width?: ThProps['width'] }[] = [
  { title: 'Checks', sort: 'name', width: 40 },
  { title: 'Health', sort: 'health', width: 15 },
  { title: 'Uptime', sort: 'uptime', width: 15 },
  { title: 'Latency', sort: 'latency', width: 15 },
  { title: 'Transition', width: 15 },
];
const COLUMN_COUNT = COLUMNS.length + 1;

export interface ChecksTableProps {
  rows: readonly HealthRow[];
  isLoading: boolean;
  error: unknown;
  sortBy: SortColumn;
  sortDesc: boolean;
  /** Show each check's namespace (not when a namespace tab is selected). */
  showNamespace: boolean;
  onSort(column: SortColumn, desc: boolean): void;
  /** Opens a check's detail; rows are plain without it. */
  onOpen?(checkId: string): void;
  onToggleGroup(name: string): void;
}

function CheckRow({
  check,
  isChild,
  showNamespace,
  onOpen,
}: {
  check: CheckSummary;
  isChild: boolean;
  showNamespace: boolean;
  onOpen?(id: string): void;
}) {
  const classes = [onOpen && 'qd-clickable-row', isChild && 'qd-health-child'].filter(Boolean).join(' ');
  return (
    <Tr isClickable={Boolean(onOpen)} onRowClick={onOpen && (() => onOpen(check.id))} className={classes || undefined}>
      <Td />
      <Td dataLabel="Checks">
        <span className="qd-health-name">
          <CheckIcon icon={check.icon} type={check.type} />
          {check.name}
          {showNamespace && check.namespace && (
            <Label isCompact color="blue">
              {check.namespace}
            </Label>
          )}
          {check.deleted_at && (
            <Label isCompact color="red">
              Deleted
            </Label>
          )}
        </span>
      </Td>
      <Td dataLabel="Health">
        <StatusDot status={check.status} />
        {relativeAge(check.last_runtime, { min: HEALTH_CELL_MIN_AGE_MS })}
      </Td>
      <Td dataLabel="Uptime">{uptimePercent(check.uptime.passed, check.uptime.failed, 1)}</Td>
      <Td dataLabel="Latency">{formatLatency(rowLatency(check.latency))}</Td>
      <Td dataLabel="Transition">{relativeAge(check.last_transition_time)}</Td>
    </Tr>
  );
}

function GroupRow({ group, isExpanded, onToggle }: { group: CheckGroup; isExpanded: boolean; onToggle(name: string): void }) {
  return (
    <Tr isClickable onRowClick={() => onToggle(group.name)} className="qd-clickable-row" aria-expanded={isExpanded}>
      <Td>
        <Button
          variant="plain"
          size="sm"
          aria-label={`${isExpanded ? 'Collapse' : 'Expand'} ${group.name}`}
          aria-expanded={isExpanded}
          icon={isExpanded ? <AngleDownIcon /> : <AngleRightIcon />}
          onClick={(event) => {
            event.stopPropagation();
            onToggle(group.name);
          }}
        />
      </Td>
      <Td dataLabel="Checks">
        <span className="qd-health-name">
          {group.name}
          <Label isCompact>{group.checks.length}</Label>
        </span>
      </Td>
      <Td dataLabel="Health">
        <StatusDot group={group.status} />
      </Td>
      <Td dataLabel="Uptime">{`${group.passing}/${group.checks.length}`}</Td>
      <Td dataLabel="Latency">{formatLatency(group.latency)}</Td>
      <Td dataLabel="Transition" />
    </Tr>
  );
}

function SkeletonRows() {
  return Array.from({ length: SKELETON_ROWS }, (_, i) => (
    <Tr key={i}>
      {Array.from({ length: COLUMN_COUNT }, (_, j) => (
        <Td key={j}>{j > 0 && <Skeleton screenreaderText={i === 0 && j === 1 ? 'Loading checks' : undefined} />}</Td>
      ))}
    </Tr>
  ));
}

/** A spacer standing in for the rows scrolled out of view. */
function Spacer({ height }: { height: number }) {
  if (height <= 0) return null;
  return (
    <Tr className="qd-health-spacer" aria-hidden>
      <Td colSpan={COLUMN_COUNT} style={{ height }} />
    </Tr>
  );
}

const rowKey = (row: HealthRow | undefined) => (row?.kind === 'group' ? `group:${row.group.name}` : (row?.check.id ?? ''));

/** The checks and groups, only the rows in view rendered. */
export function ChecksTable({ rows, isLoading, error, sortBy, sortDesc, showNamespace, onSort, onOpen, onToggleGroup }: ChecksTableProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  // The virtualizer's results are read in this render only, never memoized.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: OVERSCAN,
    getItemKey: (index) => rowKey(rows[index]),
  });
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = virtualizer.getTotalSize() - (items.at(-1)?.end ?? 0);
  const sortIndex = COLUMNS.findIndex((c) => c.sort === sortBy);

  const sortProps = (index: number): ThProps['sort'] =>
    COLUMNS[index]?.sort && {
      columnIndex: index,
      sortBy: { index: sortIndex, direction: sortDesc ? 'desc' : 'asc' },
      onSort: (_event, column, direction) => {
        const sort = COLUMNS[column]?.sort;
        if (sort) onSort(sort, direction === 'desc');
      },
    };

  return (
    <div className="qd-health-scroll" ref={scrollRef}>
      <Table aria-label="Health checks" variant="compact" isStickyHeader className="qd-health-table">
        <Thead>
          <Tr>
            <Th screenReaderText="Expand" modifier="fitContent" />
            {COLUMNS.map((column, index) => (
              <Th key={column.title} sort={sortProps(index)} width={column.width}>
                {column.title}
              </Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          {isLoading ? (
            <SkeletonRows />
          ) : (
            <TableStateRow
              colSpan={COLUMN_COUNT}
              isLoading={false}
              error={error}
              errorTitle="Error loading health checks"
              isEmpty={rows.length === 0}
            />
          )}
          <Spacer height={before} />
          {items.map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return row.kind === 'group' ? (
              <GroupRow key={item.key} group={row.group} isExpanded={row.isExpanded} onToggle={onToggleGroup} />
            ) : (
              <CheckRow key={item.key} check={row.check} isChild={row.isChild} showNamespace={showNamespace} onOpen={onOpen} />
            );
          })}
          <Spacer height={after} />
        </Tbody>
      </Table>
    </div>
  );
}
