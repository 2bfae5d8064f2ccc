import { expect, it } from 'vitest';
import { onlyHypothesis, validateLink, type LinkForm } from './linkForm';

const EMPTY: LinkForm = { incident: null, hypothesis: null, description: '', severity: 'low', type: 'availability' };

it('needs an incident', () => {
  expect(validateLink(EMPTY)).toEqual({ incident: 'Must select or create an incident' });
});

it('needs a hypothesis for an existing incident only', () => {
  expect(validateLink({ ...EMPTY, incident: { kind: 'existing', id: 'i1', title: 'Down' } })).toEqual({
    hypothesis: 'Must select or create a hypothesis',
  });
  expect(validateLink({ ...EMPTY, incident: { kind: 'new', title: 'Down' } })).toEqual({});
});

it('needs a severity and a type for a new incident', () => {
  expect(validateLink({ ...EMPTY, incident: { kind: 'new', title: 'Down' }, severity: '', type: '' })).toEqual({
    severity: 'Please select incident severity',
    type: 'Please select an incident type',
  });
});

it('chooses the hypothesis only when there is exactly one', () => {
  expect(onlyHypothesis([{ id: 'h1', title: 'Disk' }])).toEqual({ kind: 'existing', id: 'h1', title: 'Disk' });
  expect(onlyHypothesis([])).toBeNull();
  expect(
    onlyHypothesis([
      { id: 'h1', title: 'a' },
      { id: 'h2', title: 'b' },
    ]),
  ).toBeNull();
});
