import {
  Card,
  CardBody,
  CardTitle,
  Content,
  DescriptionList,
  EmptyState,
  EmptyStateBody,
  Grid,
  GridItem,
  PageSection,
  Title,
} from '@patternfly/react-core';
import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { useTopBar } from '../../../app/topBar';
import { DateTime } from '../../../components/DateTime';
import { HeaderDetail } from '../../../components/HeaderDetail';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { SimpleSelect } from '../../../components/Selects';
import { SeverityLabel, StatusLabel } from '../IncidentLabels';
import { INCIDENT_TYPES, SEVERITIES, labelOf, statusChoices } from '../incidentModel';
import { HypothesisTree } from './HypothesisTree';
import { Comments, Responders, Timeline } from './IncidentSides';
import { useIncidentData, type IncidentData } from './useIncidentData';
import './incident.css';

const NOBODY = '';

type Incident = NonNullable<IncidentData['incident']['data']>;

/** Status, severity, commander and communicator: selects for writers, text for readers. */
function IncidentHeader({ incident, data }: { incident: Incident; data: IncidentData }) {
  const { authorizer } = useSession();
  const toast = useToast();
  const canWrite = authorizer.can('incident', 'write');
  const update = (changes: Parameters<typeof data.updateIncident.mutate>[0]) =>
    data.updateIncident.mutate(changes, { onError: (e) => toast.error(errorMessage(e)) });
  const people = [
    { value: NOBODY, label: 'None' },
    ...(data.people.data ?? []).map((p) => ({ value: p.id, label: p.name || (p.email ?? p.id) })),
  ];
  const person = (p: { name: string; email: string | null } | null) => (p ? p.name || (p.email ?? '') : 'None');
  return (
    <header>
      <Title headingLevel="h2" size="2xl">
        {incident.title}
      </Title>
      <Content component="small">
        {incident.incident_id} · {labelOf(INCIDENT_TYPES, incident.type)} · opened <DateTime value={incident.created_at} />
        {incident.created_by ? ` by ${person(incident.created_by)}` : ''}
      </Content>
      {incident.description && <Content component="p">{incident.description}</Content>}
      <DescriptionList isHorizontal isCompact columnModifier={{ default: '2Col' }} className="pf-v6-u-mt-md">
        <HeaderDetail term="Status">
          {canWrite ? (
            <SimpleSelect
              label="Status"
              options={statusChoices(incident.status)}
              value={incident.status}
              onChange={(status) => update({ status })}
            />
          ) : (
            <StatusLabel status={incident.status} />
          )}
        </HeaderDetail>
        <HeaderDetail term="Severity">
          {canWrite ? (
            <SimpleSelect label="Severity" options={SEVERITIES} value={incident.severity} onChange={(severity) => update({ severity })} />
          ) : (
            <SeverityLabel severity={incident.severity} />
          )}
        </HeaderDetail>
        <HeaderDetail term="Commander">
          {canWrite ? (
            <SimpleSelect
              label="Commander"
              options={people}
              value={incident.commander?.id ?? NOBODY}
              onChange={(v) => update({ commander_id: v || null })}
            />
          ) : (
            person(incident.commander)
          )}
        </HeaderDetail>
        <HeaderDetail term="Communicator">
          {canWrite ? (
            <SimpleSelect
              label="Communicator"
              options={people}
              value={incident.communicator?.id ?? NOBODY}
              onChange={(v) => update({ communicator_id: v || null })}
            />
          ) : (
            person(incident.communicator)
          )}
        </HeaderDetail>
      </DescriptionList>
    </header>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Card isPlain isCompact component="section" aria-label={title}>
      <CardTitle component="h3">{title}</CardTitle>
      <CardBody>{children}</CardBody>
    </Card>
  );
}

function IncidentView({ id }: { id: string }) {
  const data = useIncidentData(id);
  const { incident } = data;
  useTopBar(incident.data?.title ?? 'Incident', incident.refetch, incident.isFetching);
  if (incident.isLoading) return <PageSpinner />;
  if (incident.error || !incident.data) {
    return (
      <PageSection>
        <EmptyState titleText={incident.error ? 'Failed to load the incident' : 'Incident not found'} headingLevel="h2" status="danger">
          {incident.error ? <EmptyStateBody>{errorMessage(incident.error)}</EmptyStateBody> : null}
        </EmptyState>
      </PageSection>
    );
  }
  return (
    <PageSection>
      <IncidentHeader incident={incident.data} data={data} />
      <Grid hasGutter className="pf-v6-u-mt-md">
        <GridItem lg={8}>
          <Section title="Hypotheses">
            <HypothesisTree data={data} />
          </Section>
          <Section title="Comments">
            <Comments data={data} />
          </Section>
        </GridItem>
        <GridItem lg={4}>
          <Section title="Responders">
            <Responders data={data} />
          </Section>
          <Section title="Timeline">
            <Timeline data={data} />
          </Section>
        </GridItem>
      </Grid>
    </PageSection>
  );
}

/** One incident: its header controls, hypotheses with evidences, responders, comments and timeline. */
export default function IncidentPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="incident" feature="incidents">
      <IncidentView id={id} />
    </RequireAccess>
  );
}
