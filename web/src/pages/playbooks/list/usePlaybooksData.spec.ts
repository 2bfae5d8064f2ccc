import { expect, it } from 'vitest';
import { byCategory, type PlaybookRow } from './usePlaybooksData';

const row = (title: string, category: string) => ({ id: title, title, category }) as PlaybookRow;

it('groups playbooks by category, the uncategorised last, each by title', () => {
  const groups = byCategory([row('b', 'Ops'), row('z', ''), row('a', 'Ops'), row('c', 'Git')]);
  expect(groups.map((g) => [g.name, g.playbooks.map((p) => p.title)])).toEqual([
    ['Git', ['c']],
    ['Ops', ['a', 'b']],
    ['', ['z']],
  ]);
});
