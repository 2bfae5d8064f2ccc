import { ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import { useMemo, useState } from 'react';
import { splitRows, type DiffLine } from './diff';

export type DiffMode = 'unified' | 'split';

const SIGN: Record<DiffLine['kind'], string> = { add: '+', remove: '-', context: ' ', hunk: '' };
const CLASS: Record<DiffLine['kind'], string | undefined> = {
  add: 'qd-diff-add',
  remove: 'qd-diff-remove',
  context: undefined,
  hunk: 'qd-diff-hunk',
};
/** What a screen reader says of a changed line. */
const SPOKEN: Record<DiffLine['kind'], string | undefined> = { add: 'added', remove: 'removed', context: undefined, hunk: undefined };

function Cells({ line, side }: { line: DiffLine | undefined; side: 'old' | 'new' }) {
  if (!line) return <td colSpan={3} />;
  const no = side === 'old' ? line.oldNo : line.newNo;
  const className = CLASS[line.kind];
  return (
    <>
      <td className="qd-diff-no">{no}</td>
      <td className={`qd-diff-sign ${className ?? ''}`} aria-label={SPOKEN[line.kind]}>
        {SIGN[line.kind]}
      </td>
      <td className={className}>{line.text}</td>
    </>
  );
}

/** A diff unified (one column, old and new line numbers) or side by side. */
export function DiffViewer({ lines }: { lines: readonly DiffLine[] }) {
  const [mode, setMode] = useState<DiffMode>('unified');
  const rows = useMemo(() => (mode === 'split' ? splitRows(lines) : []), [lines, mode]);
  return (
    <>
      <ToggleGroup aria-label="Diff view" isCompact>
        <ToggleGroupItem text="Unified" buttonId="qd-diff-unified" isSelected={mode === 'unified'} onChange={() => setMode('unified')} />
        <ToggleGroupItem text="Side by side" buttonId="qd-diff-split" isSelected={mode === 'split'} onChange={() => setMode('split')} />
      </ToggleGroup>
      <table className="qd-diff" aria-label={mode === 'unified' ? 'Unified diff' : 'Side by side diff'}>
        <colgroup>
          {(mode === 'unified' ? ['no', 'no', 'sign', 'text'] : ['no', 'sign', 'text', 'no', 'sign', 'text']).map((c, i) => (
            <col key={i} className={`qd-diff-col-${c}`} />
          ))}
        </colgroup>
        <tbody>
          {mode === 'unified'
            ? lines.map((line, i) =>
                line.kind === 'hunk' ? (
                  <tr key={i} className="qd-diff-hunk">
                    <td colSpan={4}>{line.text}</td>
                  </tr>
                ) : (
                  <tr key={i}>
                    <td className="qd-diff-no">{line.oldNo}</td>
                    <Cells line={line} side="new" />
                  </tr>
                ),
              )
            : rows.map((row, i) =>
                row.kind === 'hunk' ? (
                  <tr key={i} className="qd-diff-hunk">
                    <td colSpan={6}>{row.old?.text}</td>
                  </tr>
                ) : (
                  <tr key={i}>
                    <Cells line={row.old} side="old" />
                    <Cells line={row.new} side="new" />
                  </tr>
                ),
              )}
        </tbody>
      </table>
    </>
  );
}
