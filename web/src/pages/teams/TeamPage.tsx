import { Alert, Form, FormGroup, PageSection, Tab, TabTitleText, Tabs, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { PageSpinner } from '../../components/PageSpinner';
import { RequireAccess } from '../../components/RequireAccess';
import { FormActions, submitting } from '../../components/resource-editor/formFields';
import { YamlField } from '../../components/YamlField';
import { isUiSource, readOnlyMessage } from '../../lib/source';
import { parseYamlObject, toYamlText } from '../../lib/yamlText';
import { DEFAULT_TEAM_ICON, TeamIconPicker } from './teamIcons';
import { TeamMembers } from './TeamMembers';
import { useTeamData, type TeamRow } from './useTeamData';

/** Saving, cancelling and deleting return to the list. */
const TEAMS_PATH = '/settings/teams';

function SpecForm({ team, data, editable }: { team: TeamRow; data: ReturnType<typeof useTeamData>; editable: boolean }) {
  const [icon, setIcon] = useState(team.icon ?? DEFAULT_TEAM_ICON);
  const [spec, setSpec] = useState(() => toYamlText(team.spec));
  const [specError, setSpecError] = useState<string>();
  const toast = useToast();
  const navigate = useNavigate();
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const done = (verb: string) => (toast.success(`${team.name} ${verb} successfully`), navigate(TEAMS_PATH));

  const save = () => {
    const parsed = parseYamlObject(spec);
    setSpecError(parsed.error);
    if (!parsed.value) return;
    data.save.mutate({ icon, spec: parsed.value }, { onSuccess: () => done('updated'), onError: fail });
  };

  return (
    <Form onSubmit={submitting(save)}>
      <FormGroup label="Name" fieldId="team-name">
        <TextInput id="team-name" value={team.name} isDisabled />
      </FormGroup>
      <FormGroup label="Icon" fieldId="team-icon">
        <TeamIconPicker id="team-icon" value={icon} onChange={setIcon} isDisabled={!editable} />
      </FormGroup>
      <YamlField
        id="team-spec"
        label="Spec"
        rows={10}
        value={spec}
        onChange={setSpec}
        isDisabled={!editable}
        errors={specError ? [specError] : []}
      />
      <FormActions
        isEditing
        isHidden={!editable}
        isBusy={data.save.isPending || data.remove.isPending}
        isInvalid={false}
        onCancel={() => navigate(TEAMS_PATH)}
        onDelete={() => data.remove.mutateAsync().then(() => done('deleted'), fail)}
      />
    </Form>
  );
}

function Team({ id }: { id: string }) {
  const data = useTeamData(id);
  const { authorizer } = useSession();
  const [tab, setTab] = useState<string | number>('spec');
  const team = data.team.data;
  useTopBar(team ? `Team: ${team.name}` : 'Team', data.team.refetch, data.team.isFetching);
  if (data.team.isLoading) return <PageSpinner />;
  if (!team)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={data.team.error ? errorMessage(data.team.error) : 'No resources found'} />
      </PageSection>
    );
  const readOnly = !isUiSource(team.source);
  const editable = !readOnly && authorizer.can('database', 'write');
  return (
    <PageSection>
      {readOnly && <Alert isInline variant="info" title={readOnlyMessage(team.source)} className="pf-v6-u-mb-md" />}
      <Tabs activeKey={tab} onSelect={(_e, key) => setTab(key)} aria-label="Team" mountOnEnter>
        <Tab eventKey="spec" title={<TabTitleText>Spec</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <SpecForm team={team} data={data} editable={editable} />
          </div>
        </Tab>
        <Tab eventKey="members" title={<TabTitleText>Members</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <TeamMembers data={data} canWrite={editable} />
          </div>
        </Tab>
      </Tabs>
    </PageSection>
  );
}

export default function TeamPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="database" feature="settings.teams">
      <Team id={id} />
    </RequireAccess>
  );
}
