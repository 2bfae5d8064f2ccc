import { describe, expect, it } from 'vitest';
import { changeLines, dottedPath, parseUnifiedDiff, patchLines, splitRows } from './diff';

const UNIFIED = `--- a
+++ b
@@ -3,3 +3,3 @@
 kind: Deployment
-replicas: 2
+replicas: 3
 image: nginx
`;

describe('diff lines', () => {
  it('parses a unified diff with line numbers', () => {
    expect(parseUnifiedDiff(UNIFIED)).toEqual([
      { kind: 'hunk', text: '@@ -3,3 +3,3 @@' },
      { kind: 'context', text: 'kind: Deployment', oldNo: 3, newNo: 3 },
      { kind: 'remove', text: 'replicas: 2', oldNo: 4 },
      { kind: 'add', text: 'replicas: 3', newNo: 4 },
      { kind: 'context', text: 'image: nginx', oldNo: 5, newNo: 5 },
    ]);
  });

  it('shows RFC 6902 operations as hunks', () => {
    const lines = patchLines([
      { op: 'replace', path: '/spec/replicas', value: 3 },
      { op: 'remove', path: '/metadata/labels/a~1b' },
      { op: 'add', path: '/spec/containers/0/env', value: { A: '1' } },
    ]);
    expect(lines.map((l) => `${l.kind}:${l.text}`)).toEqual([
      'hunk:@@ replace spec.replicas @@',
      'add:3',
      'hunk:@@ remove metadata.labels.a/b @@',
      'remove:metadata.labels.a/b',
      'hunk:@@ add spec.containers[0].env @@',
      'add:{',
      'add:  "A": "1"',
      'add:}',
    ]);
  });

  it('shows a merge patch by its leaves', () => {
    expect(patchLines({ spec: { replicas: 2, paused: null } }).map((l) => `${l.kind}:${l.text}`)).toEqual([
      'hunk:@@ replace spec.replicas @@',
      'add:2',
      'hunk:@@ remove spec.paused @@',
      'remove:spec.paused',
    ]);
  });

  it('prefers the recorded diff to the patches', () => {
    expect(changeLines({ diff: UNIFIED, patches: [{ op: 'remove', path: '/x' }] })[0]?.text).toBe('@@ -3,3 +3,3 @@');
    expect(changeLines({ diff: null, patches: null })).toEqual([]);
  });

  it('pairs removals with the additions after them side by side', () => {
    const rows = splitRows(parseUnifiedDiff(UNIFIED));
    expect(rows.map((r) => [r.kind, r.old?.text, r.new?.text])).toEqual([
      ['hunk', '@@ -3,3 +3,3 @@', '@@ -3,3 +3,3 @@'],
      ['context', 'kind: Deployment', 'kind: Deployment'],
      ['change', 'replicas: 2', 'replicas: 3'],
      ['context', 'image: nginx', 'image: nginx'],
    ]);
    expect(splitRows(patchLines([{ op: 'add', path: '/a', value: 1 }]))[1]).toMatchObject({ kind: 'change', old: undefined });
  });

  it('names the root', () => {
    expect(dottedPath('')).toBe('(root)');
  });
});
