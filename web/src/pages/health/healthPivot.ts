/** The Health page's pivot view: a row per value of the pivot-by field, a
 * column per value of the pivot label, and in each cell the health, uptime
 * or latency of the checks that have both. */
import type { CheckSummary } from './healthFilter';
import { rowLatency } from '../../lib/healthFormat';
import { fieldValue, groupStatus, NO_VALUE, type GroupStatus } from './healthGroups';
import { LABEL_PREFIX } from './healthParams';

export interface PivotCell {
  status: GroupStatus;
  /** Runs of the cell's checks. */
  passed: number;
  failed: number;
  /** The slowest check's. */
  latency?: number;
}

export interface PivotRow {
  name: string;
  /** One per column; undefined where no check has both values. */
  cells: (PivotCell | undefined)[];
}

export interface Pivot {
  columns: string[];
  rows: PivotRow[];
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
const sorted = (values: Iterable<string>) => [...values].sort(collator.compare);

function pivotCell(checks: readonly CheckSummary[]): PivotCell {
  let passed = 0;
  let failed = 0;
  let latency: number | undefined;
  for (const check of checks) {
    passed += check.uptime.passed;
    failed += check.uptime.failed;
    const l = rowLatency(check.latency);
    if (l !== undefined && (latency === undefined || l > latency)) latency = l;
  }
  return { status: groupStatus(checks), passed, failed, latency };
}

export function pivotChecks(checks: readonly CheckSummary[], pivotBy: string, pivotLabel: string): Pivot {
  const label = LABEL_PREFIX + pivotLabel;
  const byRow = new Map<string, Map<string, CheckSummary[]>>();
  const columns = new Set<string>();
  for (const check of checks) {
    const row = fieldValue(check, pivotBy) ?? NO_VALUE;
    const column = fieldValue(check, label) ?? NO_VALUE;
    columns.add(column);
    let cells = byRow.get(row);
    if (!cells) byRow.set(row, (cells = new Map()));
    const members = cells.get(column);
    if (members) members.push(check);
    else cells.set(column, [check]);
  }
  const columnList = sorted(columns);
  return {
    columns: columnList,
    rows: sorted(byRow.keys()).map((name) => {
      const cells = byRow.get(name) ?? new Map<string, CheckSummary[]>();
      return {
        name,
        cells: columnList.map((column) => {
          const members = cells.get(column);
          return members ? pivotCell(members) : undefined;
        }),
      };
    }),
  };
}
