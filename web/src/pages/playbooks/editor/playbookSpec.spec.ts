import { readFileSync, readdirSync } from 'node:fs';
import { expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { SPEC_MESSAGES, problemText, specColumns, specLines, specProblems } from './playbookSpec';

const SAMPLES = new URL('../../../../../config/samples/', import.meta.url);

it('needs at least one action, each named uniquely with exactly one kind', () => {
  expect(specProblems({})).toEqual([{ field: 'spec.actions', message: SPEC_MESSAGES.actionsRequired }]);
  expect(specProblems({ actions: [] })).toEqual([{ field: 'spec.actions', message: SPEC_MESSAGES.actionsRequired }]);
  expect(
    specProblems({
      actions: [
        { name: 'a', exec: { script: 'true' } },
        { name: 'a', http: {} },
        { exec: {}, sql: {} },
      ],
    }),
  ).toEqual([
    { field: 'spec.actions[1].name', message: SPEC_MESSAGES.duplicateName },
    { field: 'spec.actions[2].name', message: 'This field is required' },
    { field: 'spec.actions[2]', message: SPEC_MESSAGES.actionKind },
  ]);
  expect(specProblems({ actions: [{ name: 'a', exec: { script: 'true' } }] })).toEqual([]);
});

it('checks parameter types and the approval type', () => {
  const actions = [{ name: 'a', exec: {} }];
  expect(specProblems({ actions, parameters: [{ name: 'p', type: 'number' }], approval: { type: 'some' } }).map(problemText)).toEqual([
    `spec.parameters[0].type: ${SPEC_MESSAGES.parameterType}`,
    'spec.approval.type: Must be any or all',
  ]);
  expect(specProblems({ actions, parameters: 'x' })).toEqual([{ field: 'spec.parameters', message: SPEC_MESSAGES.notAList }]);
});

it('takes the row columns from the spec, the title defaulting to the name', () => {
  expect(specColumns('restart', { category: 'Kubernetes', icon: 'k8s' })).toEqual({
    title: 'restart',
    icon: 'k8s',
    description: null,
    category: 'Kubernetes',
  });
});

it('checks a spec against the CRD once the structural rules hold', () => {
  const actions = [{ name: 'a', exec: { script: 'true' } }];
  expect(specLines({ actions })).toEqual([]);
  expect(specLines({ actions: [{ name: 'a', exec: { scrpt: 'true' } }], title: 3 })).toEqual([
    'actions[0].exec.scrpt: unknown field',
    'title: must be a string',
  ]);
  expect(specLines({ actions: [] })).toEqual([`spec.actions: ${SPEC_MESSAGES.actionsRequired}`]);
});

it('accepts the sample playbooks', () => {
  for (const file of readdirSync(SAMPLES).filter((f) => f.startsWith('playbook'))) {
    const docs = parseAllDocuments(readFileSync(new URL(file, SAMPLES), 'utf8')).map((d) => d.toJS() as { kind?: string; spec?: unknown });
    for (const doc of docs.filter((d) => d.kind === 'Playbook')) expect(specLines(doc.spec as Record<string, unknown>), file).toEqual([]);
  }
});
