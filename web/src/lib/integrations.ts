/** The integrations list (the `integrations_with_status` view): what each row
 * is, where it is edited, and how its last run reads. */

export const INTEGRATION_TYPES = ['topology', 'scraper', 'logging_backend', 'gitops'] as const;
export type IntegrationType = (typeof INTEGRATION_TYPES)[number];

/** Integrations written directly (through the data API), with an edit page. */
export type DirectType = Exclude<IntegrationType, 'gitops'>;

/** The data API relations of the direct integrations. */
export type DirectTable = 'topologies' | 'config_scrapers' | 'logging_backends';

export const DIRECT: Record<DirectType, { table: DirectTable; label: string }> = {
  topology: { table: 'topologies', label: 'Custom Topology' },
  scraper: { table: 'config_scrapers', label: 'Catalog Scraper' },
  logging_backend: { table: 'logging_backends', label: 'Log Backend' },
};

export function isDirectType(value: string | undefined): value is DirectType {
  return value !== undefined && Object.hasOwn(DIRECT, value);
}

/** 'Custom Topology', 'Catalog Scraper · aws', 'Log Backend', 'GitOps · aws'. */
export function typeLabel(integrationType: string, type: string | null | undefined): string {
  if (integrationType === 'gitops') return type ? `GitOps · ${type}` : 'GitOps';
  if (!isDirectType(integrationType)) return integrationType;
  const { label } = DIRECT[integrationType];
  return integrationType === 'scraper' && type ? `${label} · ${type}` : label;
}

/** The edit page of a direct integration; GitOps ones have none. */
export function integrationPath(row: { id: string; integration_type: string }): string | undefined {
  return isDirectType(row.integration_type) ? `/settings/integrations/${row.integration_type}/${row.id}` : undefined;
}

export type StatusColor = 'yellow' | 'green' | 'orange' | 'red' | 'grey';

/** Label colour of a job status (job_history.status, decision 13.10):
 * RUNNING yellow, SUCCESS green, WARNING orange, FAILED and STOPPED red. */
export function jobStatusColor(status: string | null | undefined): StatusColor {
  switch (status) {
    case 'RUNNING':
      return 'yellow';
    case 'SUCCESS':
      return 'green';
    case 'WARNING':
      return 'orange';
    case 'FAILED':
    case 'STOPPED':
      return 'red';
    default:
      return 'grey';
  }
}

/** The ' - {chosen option}' suffix of the Add Integration title. */
export function addIntegrationTitle(option?: string): string {
  return option ? `Add Integration - ${option}` : 'Add Integration';
}

/** Labels edited as key/value rows. */
export interface LabelRow {
  key: string;
  value: string;
}

export function labelRows(labels: unknown): LabelRow[] {
  if (!labels || typeof labels !== 'object' || Array.isArray(labels)) return [];
  return Object.entries(labels).map(([key, value]) => ({ key, value: typeof value === 'string' ? value : JSON.stringify(value) }));
}

/** Rows back to a labels object: blank rows are dropped, keys trimmed. */
export function labelsObject(rows: readonly LabelRow[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { key, value } of rows) {
    if (key.trim()) out[key.trim()] = value;
  }
  return out;
}

/** A problem with the label rows: a value without a key, or a key twice. */
export function labelsError(rows: readonly LabelRow[]): string | undefined {
  const seen = new Set<string>();
  for (const { key, value } of rows) {
    const k = key.trim();
    if (!k && value.trim()) return 'Every label needs a key';
    if (k && seen.has(k)) return `Label '${k}' is given twice`;
    if (k) seen.add(k);
  }
  return undefined;
}
