import { Label } from '@patternfly/react-core';
import { Table, Tbody, Td, Th, Thead, Tr } from '@patternfly/react-table';
import { useMemo } from 'react';
import { TableStateRow } from '../../components/TableStates';
import { formatLatency, uptimePercent } from '../../lib/healthFormat';
import type { CheckSummary } from './healthFilter';
import type { PivotCellType } from './healthParams';
import { pivotChecks, type PivotCell } from './healthPivot';
import { StatusDot } from './StatusDot';

function Cell({ cell, type }: { cell: PivotCell; type: PivotCellType }) {
  if (type === 'uptime') return uptimePercent(cell.passed, cell.failed, 1);
  if (type === 'latency') return formatLatency(cell.latency);
  return <StatusDot group={cell.status} />;
}

interface PivotTableProps {
  checks: readonly CheckSummary[];
  pivotBy: string;
  pivotLabel: string;
  cellType: PivotCellType;
  onClose(): void;
}

/** Checks pivoted: a row per pivot-by value, a column per pivot label value,
 * cells showing the health, uptime or latency of the checks with both. */
export function PivotTable({ checks, pivotBy, pivotLabel, cellType, onClose }: PivotTableProps) {
  const pivot = useMemo(() => pivotChecks(checks, pivotBy, pivotLabel), [checks, pivotBy, pivotLabel]);
  return (
    <div className="qd-health-scroll">
      <Label onClose={onClose} closeBtnAriaLabel="Leave the pivot view">
        {`${pivotBy} by ${pivotLabel}: ${cellType}`}
      </Label>
      <Table aria-label="Health pivot" variant="compact" isStickyHeader className="qd-health-table">
        <Thead>
          <Tr>
            <Th>{pivotBy}</Th>
            {pivot.columns.map((column) => (
              <Th key={column}>{column}</Th>
            ))}
          </Tr>
        </Thead>
        <Tbody>
          <TableStateRow
            colSpan={pivot.columns.length + 1}
            isLoading={false}
            error={null}
            errorTitle=""
            isEmpty={pivot.rows.length === 0}
          />
          {pivot.rows.map((row) => (
            <Tr key={row.name}>
              <Td dataLabel={pivotBy}>{row.name}</Td>
              {row.cells.map((cell, i) => (
                <Td key={pivot.columns[i]} dataLabel={pivot.columns[i]}>
                  {cell && <Cell cell={cell} type={cellType} />}
                </Td>
              ))}
            </Tr>
          ))}
        </Tbody>
      </Table>
    </div>
  );
}
