/** A change's difference as lines to show (decision 60): the unified diff a
 * source recorded (`diff`), else its patches. RFC 6902 patches (what the
 * scrapers write) carry the new values but not the old ones, so each
 * operation is a hunk: removed paths on the old side, added or replaced
 * values on the new side. A JSON merge patch is shown the same way. */

export type LineKind = 'context' | 'add' | 'remove' | 'hunk';

export interface DiffLine {
  kind: LineKind;
  text: string;
  /** Line numbers in the old and new text, when the diff gives them. */
  oldNo?: number;
  newNo?: number;
}

/** One row of the side-by-side view; a side is empty where the other has lines only. */
export interface SplitRow {
  kind: 'context' | 'change' | 'hunk';
  old?: DiffLine;
  new?: DiffLine;
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/;

/** A unified diff's lines; the file headers (---, +++, diff, index) are dropped. */
export function parseUnifiedDiff(text: string): DiffLine[] {
  const lines: DiffLine[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      lines.push({ kind: 'hunk', text: line });
    } else if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('diff ') || line.startsWith('index ')) {
      continue;
    } else if (line.startsWith('+')) {
      lines.push({ kind: 'add', text: line.slice(1), newNo: newNo++ });
    } else if (line.startsWith('-')) {
      lines.push({ kind: 'remove', text: line.slice(1), oldNo: oldNo++ });
    } else if (line.startsWith('\\')) {
      continue;
    } else {
      lines.push({ kind: 'context', text: line.startsWith(' ') ? line.slice(1) : line, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return lines;
}

type Operation = { op?: unknown; path?: unknown; from?: unknown; value?: unknown };

/** `/spec/containers/0/image` -> `spec.containers[0].image`; the root is `(root)`. */
export function dottedPath(pointer: string): string {
  const out = pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : acc ? `${acc}.${s}` : s), '');
  return out || '(root)';
}

function valueLines(value: unknown): string[] {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (text ?? 'null').split('\n');
}

function isOperation(value: unknown): value is Operation {
  return typeof value === 'object' && value !== null && typeof (value as Operation).op === 'string';
}

function operationLines(op: Operation): DiffLine[] {
  const path = dottedPath(String(op.path ?? ''));
  const kind = String(op.op);
  const header: DiffLine = { kind: 'hunk', text: `@@ ${kind} ${path} @@` };
  const added = (value: unknown) => valueLines(value).map((text): DiffLine => ({ kind: 'add', text }));
  switch (kind) {
    case 'add':
    case 'replace':
      return [header, ...added(op.value)];
    case 'remove':
      return [header, { kind: 'remove', text: path }];
    case 'move':
    case 'copy': {
      const from = dottedPath(String(op.from ?? ''));
      const lines: DiffLine[] = [header];
      if (kind === 'move') lines.push({ kind: 'remove', text: from });
      lines.push({ kind: 'add', text: `${path} (from ${from})` });
      return lines;
    }
    default:
      return [header, { kind: 'context', text: JSON.stringify(op.value ?? null) }];
  }
}

/** A merge patch's leaves as operations: null removes, anything else sets. */
function mergePatchOperations(patch: Record<string, unknown>, prefix = ''): Operation[] {
  return Object.entries(patch).flatMap(([key, value]): Operation[] => {
    const path = `${prefix}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    if (value === null) return [{ op: 'remove', path }];
    if (typeof value === 'object' && !Array.isArray(value)) return mergePatchOperations(value as Record<string, unknown>, path);
    return [{ op: 'replace', path, value }];
  });
}

/** The patches (an RFC 6902 array or a JSON merge patch) as diff lines. */
export function patchLines(patches: unknown): DiffLine[] {
  if (Array.isArray(patches)) return patches.filter(isOperation).flatMap(operationLines);
  if (typeof patches === 'object' && patches !== null)
    return mergePatchOperations(patches as Record<string, unknown>).flatMap(operationLines);
  return [];
}

/** The lines of a change: its recorded diff, else its patches. */
export function changeLines(change: { diff?: string | null; patches?: unknown }): DiffLine[] {
  if (change.diff?.trim()) return parseUnifiedDiff(change.diff);
  return patchLines(change.patches);
}

/** Unified lines side by side: a run of removals pairs with the additions after it. */
export function splitRows(lines: readonly DiffLine[]): SplitRow[] {
  const rows: SplitRow[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as DiffLine;
    if (line.kind === 'hunk' || line.kind === 'context') {
      rows.push(line.kind === 'hunk' ? { kind: 'hunk', old: line, new: line } : { kind: 'context', old: line, new: line });
      i++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (i < lines.length && lines[i]?.kind === 'remove') removed.push(lines[i++] as DiffLine);
    while (i < lines.length && lines[i]?.kind === 'add') added.push(lines[i++] as DiffLine);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push({ kind: 'change', old: removed[k], new: added[k] });
  }
  return rows;
}
