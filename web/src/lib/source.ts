/** Where a row came from (its `source` column) in words, and the notice shown
 * on rows the UI may not change (everything not written from the UI). */
import type { Source } from '../api/relations.gen';

/** The source of rows written from the console. */
export const UI_SOURCE = 'UI' satisfies Source;

const SOURCE_LABELS: Record<Source, string> = {
  UI: 'UI',
  KubernetesCRD: 'Kubernetes CRD',
  ConfigFile: 'a local config file',
  Topology: 'a topology',
  Push: 'an agent (push)',
  CRDSync: 'a CRD sync',
  ApplicationCRD: 'an Application CRD',
  System: 'the system',
};

export function sourceLabel(source: string | null | undefined): string {
  if (!source) return SOURCE_LABELS[UI_SOURCE];
  return SOURCE_LABELS[source as Source] ?? source;
}

export function isUiSource(source: string | null | undefined): boolean {
  return !source || source === UI_SOURCE;
}

export function readOnlyMessage(source: string | null | undefined): string {
  return `Read-Only Mode: This resource is managed by ${sourceLabel(source)} and cannot be edited from the UI.`;
}
