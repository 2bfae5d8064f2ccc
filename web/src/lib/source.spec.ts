import { expect, it } from 'vitest';
import { isUiSource, readOnlyMessage, sourceLabel, UI_SOURCE } from './source';

it('treats console rows and rows without a source as the UI', () => {
  expect(isUiSource(UI_SOURCE)).toBe(true);
  expect(isUiSource(null)).toBe(true);
  expect(isUiSource('KubernetesCRD')).toBe(false);
});

it('names every source, and an unknown one as itself', () => {
  expect(sourceLabel('ConfigFile')).toBe('a local config file');
  expect(sourceLabel(undefined)).toBe(sourceLabel(UI_SOURCE));
  expect(sourceLabel('Elsewhere')).toBe('Elsewhere');
});

it('says who manages a read-only row', () => {
  expect(readOnlyMessage('KubernetesCRD')).toBe(
    'Read-Only Mode: This resource is managed by Kubernetes CRD and cannot be edited from the UI.',
  );
});
