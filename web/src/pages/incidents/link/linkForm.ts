/** The incident link form (spec part 2 sections 3.3, 4 and 5): its state,
 * validation and the calls its submit makes. */

/** An existing row chosen, or a new one to create with the typed title. */
export type Pick = { kind: 'existing'; id: string; title: string } | { kind: 'new'; title: string };

export interface LinkForm {
  incident: Pick | null;
  hypothesis: Pick | null;
  description: string;
  /** Of a new incident. */
  severity: string;
  type: string;
}

export interface LinkErrors {
  incident?: string;
  hypothesis?: string;
  severity?: string;
  type?: string;
}

export function validateLink(form: LinkForm): LinkErrors {
  const errors: LinkErrors = {};
  if (!form.incident) errors.incident = 'Must select or create an incident';
  if (form.incident?.kind === 'existing' && !form.hypothesis) errors.hypothesis = 'Must select or create a hypothesis';
  if (form.incident?.kind === 'new') {
    if (!form.severity) errors.severity = 'Please select incident severity';
    if (!form.type) errors.type = 'Please select an incident type';
  }
  return errors;
}

export const isValid = (errors: LinkErrors) => Object.keys(errors).length === 0;

/** The hypothesis to preselect: the only one, when an existing incident has exactly one. */
export function onlyHypothesis(hypotheses: readonly { id: string; title: string }[]): Pick | null {
  const [only] = hypotheses;
  return hypotheses.length === 1 && only ? { kind: 'existing', id: only.id, title: only.title } : null;
}

/** What the evidence points at, and its kind (the evidences table's type). */
export interface EvidenceSubject {
  type: 'check' | 'config' | 'config_change' | 'topology';
  check_id?: string;
  config_id?: string;
  config_change_id?: string;
  component_id?: string;
}
