/** Rows of the data API (/api/db/*) and the sign-in flow: these have no
 * schema in the OpenAPI document, so their shapes are written out here. */

export interface PersonRef {
  id: string;
  name: string;
  email?: string | null;
  avatar?: string | null;
}

export interface TeamRef {
  id: string;
  name: string;
}

export type Source = 'UI' | 'KubernetesCRD' | 'ConfigFile' | 'Topology' | 'Push' | 'CRDSync' | 'ApplicationCRD' | 'System';

export interface NamedRef {
  id: string;
  name: string;
}

export interface PermissionRow {
  id: string;
  name: string | null;
  namespace: string;
  description: string | null;
  subject_type: string;
  subject: string | null;
  person_id: string | null;
  team_id: string | null;
  notification_id: string | null;
  action: string;
  deny: boolean;
  object: string | null;
  object_selector: unknown;
  component_id: string | null;
  config_id: string | null;
  canary_id: string | null;
  playbook_id: string | null;
  connection_id: string | null;
  source: Source;
  created_at: string;
  updated_at: string;
  person?: PersonRef | null;
  team?: TeamRef | null;
  notification?: NamedRef | null;
  playbook?: NamedRef | null;
  canary?: NamedRef | null;
  connection?: NamedRef | null;
  component?: NamedRef | null;
  config?: NamedRef | null;
  created_by?: PersonRef | null;
}

export interface TeamRow {
  id: string;
  name: string;
  icon: string | null;
  spec: unknown;
  source: Source;
  created_at: string;
  updated_at: string;
  created_by: PersonRef | null;
}

export interface PersonRow extends PersonRef {
  roles: string[] | null;
}

export interface PropertyRow {
  name: string;
  value: string | null;
  created_at?: string;
  updated_at?: string;
}

export interface LoginNode {
  type?: string;
  group?: string;
  attributes: { name: string; type: string; value?: unknown; required?: boolean; disabled?: boolean };
  meta?: { label?: { text: string } };
  messages?: UiMessage[];
}

export interface UiMessage {
  id: number;
  type: 'info' | 'error' | 'success' | string;
  text: string;
}

export interface LoginFlow {
  id: string;
  expires_at: string;
  return_to?: string | null;
  refresh?: boolean;
  requested_aal?: string;
  ui: { action: string; method: string; messages?: UiMessage[]; nodes: LoginNode[] };
}

export interface FlowError {
  error: { id: string; message: string };
  use_flow_id?: string;
}

/** A row of the integrations_with_status view (direct and GitOps integrations). */
export interface IntegrationRow {
  id: string;
  name: string;
  namespace: string | null;
  integration_type: string;
  type: string | null;
  source: Source;
  labels: Record<string, string> | null;
  job_status: string | null;
  job_time_start: string | null;
  created_at: string;
  updated_at: string;
  deleted_at?: string | null;
  created_by: PersonRef | null;
}

/** A topology, catalog scraper or log backend row, as its form edits it. */
export interface DirectIntegrationRow {
  id: string;
  name: string;
  namespace?: string;
  labels: Record<string, string> | null;
  spec: unknown;
  schedule?: string | null;
  source: Source;
  agent_id?: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
  created_by: PersonRef | null;
}
