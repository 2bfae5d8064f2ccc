import type { DirectIntegrationRow } from './useIntegrationData';

/** What the edit page and the Add Integration modal give a direct form. */
export interface DirectFormProps {
  /** The row being edited; none when adding. */
  row?: DirectIntegrationRow;
  /** Rows not written from the UI: fields disabled, no actions. */
  readOnly?: boolean;
  isBusy: boolean;
  /** The body to POST (adding) or PATCH (editing). */
  onSubmit(body: Record<string, unknown>): void;
  onCancel?(): void;
  onDelete?(): Promise<unknown>;
}
