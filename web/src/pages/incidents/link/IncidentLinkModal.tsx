import { Button, FormGroup, TextArea } from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useToast } from '../../../app/toast';
import { FieldError } from '../../../components/FieldError';
import { FormModal } from '../../../components/FormModal';
import { SimpleSelect } from '../../../components/Selects';
import {
  DEFAULT_INCIDENT_TYPE,
  DEFAULT_SEVERITY,
  INCIDENT_TYPES,
  SEVERITIES,
  incidentPath,
  labelOf,
  INCIDENT_STATUSES,
} from '../incidentModel';
import { isValid, onlyHypothesis, validateLink, type EvidenceSubject, type LinkForm, type Pick } from './linkForm';
import { PickField } from './PickField';
import { LinkError, useIncidentLink } from './useIncidentLink';

/** Attach as Evidence: pick or create an incident, then a hypothesis, and link `subject` to it. */
export function IncidentLinkModal({ subject, onClose }: { subject: EvidenceSubject; onClose(): void }) {
  const toast = useToast();
  const navigate = useNavigate();
  const [incidentText, setIncidentText] = useState('');
  const [hypothesisText, setHypothesisText] = useState('');
  const [form, setForm] = useState<LinkForm>({
    incident: null,
    hypothesis: null,
    description: '',
    severity: DEFAULT_SEVERITY,
    type: DEFAULT_INCIDENT_TYPE,
  });
  const [submitted, setSubmitted] = useState(false);
  const { incidents, hypotheses, link } = useIncidentLink(incidentText, form.incident);
  const errors = submitted ? validateLink(form) : {};
  const isNew = form.incident?.kind === 'new';

  // An existing incident with exactly one hypothesis has it chosen, once its hypotheses load.
  const [autoFor, setAutoFor] = useState<string | undefined>();
  const chosenId = form.incident?.kind === 'existing' ? form.incident.id : undefined;
  if (chosenId && hypotheses.data && autoFor !== chosenId) {
    setAutoFor(chosenId);
    const only = onlyHypothesis(hypotheses.data);
    if (only && !form.hypothesis) {
      setForm({ ...form, hypothesis: only });
      setHypothesisText(only.title);
    }
  }

  const pickIncident = (incident: Pick | null) => {
    setForm((f) => ({ ...f, incident, hypothesis: null }));
    setHypothesisText('');
    setAutoFor(undefined);
  };

  const submit = () => {
    setSubmitted(true);
    if (!isValid(validateLink(form))) return;
    link.mutate(
      { form, subject },
      {
        onSuccess: (incidentId) => {
          const href = incidentPath(incidentId);
          toast.success('Linked to incident', { text: 'View incident', href, follow: () => void navigate(href) });
          onClose();
        },
        onError: (e) => {
          console.error('Attach as evidence failed', e);
          // An evidence that could not be attached closes the dialog; a failed incident or hypothesis keeps it open.
          if (e instanceof LinkError && e.step === 'evidence') {
            toast.error(`Failed to attach the evidence: ${e.message}`);
            onClose();
          } else toast.error(e.message);
        },
      },
    );
  };

  return (
    <FormModal
      id="incident-link-form"
      title="Attach as Evidence"
      variant="medium"
      onClose={onClose}
      onSubmit={submit}
      actions={
        <Button type="submit" form="incident-link-form" isDisabled={link.isPending}>
          {link.isPending ? 'Linking..' : 'Link'}
        </Button>
      }
    >
      <FormGroup label="Incident" isRequired fieldId="link-incident">
        <PickField
          id="link-incident"
          label="Incident"
          text={incidentText}
          onText={setIncidentText}
          options={(incidents.data ?? []).map((i) => ({
            id: i.id,
            title: i.title,
            description: `${i.incident_id} · ${labelOf(INCIDENT_STATUSES, i.status)}`,
          }))}
          createLabel={(t) => `Create incident "${t}"`}
          onPick={pickIncident}
          isInvalid={Boolean(errors.incident)}
        />
        <FieldError text={errors.incident} />
      </FormGroup>
      {isNew && (
        <>
          <FormGroup label="Severity" isRequired fieldId="link-severity">
            <SimpleSelect
              id="link-severity"
              label="Severity"
              options={SEVERITIES}
              value={form.severity}
              onChange={(severity) => setForm((f) => ({ ...f, severity }))}
              isInvalid={Boolean(errors.severity)}
            />
            <FieldError text={errors.severity} />
          </FormGroup>
          <FormGroup label="Type" isRequired fieldId="link-type">
            <SimpleSelect
              id="link-type"
              label="Type"
              options={INCIDENT_TYPES}
              value={form.type}
              onChange={(type) => setForm((f) => ({ ...f, type }))}
              isInvalid={Boolean(errors.type)}
            />
            <FieldError text={errors.type} />
          </FormGroup>
        </>
      )}
      {form.incident && (
        <FormGroup label="Hypothesis" isRequired={!isNew} fieldId="link-hypothesis">
          <PickField
            id="link-hypothesis"
            label="Hypothesis"
            text={hypothesisText}
            onText={setHypothesisText}
            options={(hypotheses.data ?? []).filter(
              (h) => h.title.toLowerCase().includes(hypothesisText.trim().toLowerCase()) || form.hypothesis?.kind === 'existing',
            )}
            createLabel={(t) => `Create hypothesis "${t}"`}
            onPick={(hypothesis) => setForm((f) => ({ ...f, hypothesis }))}
            isInvalid={Boolean(errors.hypothesis)}
          />
          <FieldError text={errors.hypothesis} />
        </FormGroup>
      )}
      <FormGroup label="Description" fieldId="link-description">
        <TextArea id="link-description" value={form.description} onChange={(_e, description) => setForm((f) => ({ ...f, description }))} />
      </FormGroup>
    </FormModal>
  );
}
