import { Button, FormGroup, TextArea, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useToast } from '../../../app/toast';
import { FieldError } from '../../../components/FieldError';
import { FormModal } from '../../../components/FormModal';
import { SimpleSelect } from '../../../components/Selects';
import { DEFAULT_INCIDENT_TYPE, DEFAULT_SEVERITY, INCIDENT_TYPES, SEVERITIES, incidentPath } from '../incidentModel';
import type { useIncidentsData } from './useIncidentsData';

const NOBODY = '';

type Data = ReturnType<typeof useIncidentsData>;

/** Title, description, type, severity and commander; opens the new incident. */
export function CreateIncidentModal({ create, people, onClose }: Pick<Data, 'create' | 'people'> & { onClose(): void }) {
  const toast = useToast();
  const navigate = useNavigate();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState<string>(DEFAULT_INCIDENT_TYPE);
  const [severity, setSeverity] = useState<string>(DEFAULT_SEVERITY);
  const [commander, setCommander] = useState(NOBODY);
  const [submitted, setSubmitted] = useState(false);
  const titleError = submitted && !title.trim() ? 'Title is required' : undefined;
  const commanders = [
    { value: NOBODY, label: 'None' },
    ...(people.data ?? []).map((p) => ({ value: p.id, label: p.name || (p.email ?? p.id) })),
  ];

  const submit = () => {
    setSubmitted(true);
    if (!title.trim()) return;
    create.mutate(
      { title: title.trim(), description, type, severity, commander_id: commander || null },
      {
        onSuccess: (row) => {
          onClose();
          void navigate(incidentPath(row.id));
        },
        onError: (e) => toast.error(errorMessage(e)),
      },
    );
  };

  return (
    <FormModal
      id="create-incident-form"
      title="Create incident"
      variant="medium"
      onClose={onClose}
      onSubmit={submit}
      actions={
        <Button type="submit" form="create-incident-form" isLoading={create.isPending} isDisabled={create.isPending}>
          Create
        </Button>
      }
    >
      <FormGroup label="Title" isRequired fieldId="incident-title">
        <TextInput
          id="incident-title"
          value={title}
          onChange={(_e, v) => setTitle(v)}
          isRequired
          validated={titleError ? 'error' : 'default'}
        />
        <FieldError text={titleError} />
      </FormGroup>
      <FormGroup label="Description" fieldId="incident-description">
        <TextArea id="incident-description" value={description} onChange={(_e, v) => setDescription(v)} />
      </FormGroup>
      <FormGroup label="Type" fieldId="incident-type">
        <SimpleSelect id="incident-type" label="Type" options={INCIDENT_TYPES} value={type} onChange={setType} />
      </FormGroup>
      <FormGroup label="Severity" fieldId="incident-severity">
        <SimpleSelect id="incident-severity" label="Severity" options={SEVERITIES} value={severity} onChange={setSeverity} />
      </FormGroup>
      <FormGroup label="Commander" fieldId="incident-commander">
        <SimpleSelect id="incident-commander" label="Commander" options={commanders} value={commander} onChange={setCommander} />
      </FormGroup>
    </FormModal>
  );
}
