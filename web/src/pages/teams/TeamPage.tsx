import { ActionGroup, Alert, Button, Form, FormGroup, PageSection, Tab, TabTitleText, Tabs, TextInput } from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { DeleteButton } from '../../components/ConfirmDialog';
import { PageSpinner } from '../../components/PageSpinner';
import { RequireAccess } from '../../components/RequireAccess';
import { YamlField } from '../../components/YamlField';
import { isUiSource } from '../../lib/source';
import { parseYamlObject, toYamlText } from '../../lib/yamlText';
import { TeamMembers } from './TeamMembers';
import { useTeamData, type TeamRow } from './useTeamData';

function SpecForm({ team, data, canWrite }: { team: TeamRow; data: ReturnType<typeof useTeamData>; canWrite: boolean }) {
  const [icon, setIcon] = useState(team.icon ?? 'group');
  const [spec, setSpec] = useState(() => toYamlText(team.spec));
  const [specError, setSpecError] = useState<string>();
  const toast = useToast();
  const navigate = useNavigate();
  const editable = canWrite && isUiSource(team.source);

  const save = () => {
    const parsed = parseYamlObject(spec);
    setSpecError(parsed.error);
    if (!parsed.value) return;
    data.save.mutate(
      { icon, spec: parsed.value },
      { onSuccess: () => toast.success(`${team.name} updated successfully`), onError: (e) => toast.error(errorMessage(e)) },
    );
  };

  return (
    <Form
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <FormGroup label="Name" fieldId="team-name">
        <TextInput id="team-name" value={team.name} isDisabled />
      </FormGroup>
      <FormGroup label="Icon" fieldId="team-icon">
        <TextInput id="team-icon" value={icon} isDisabled={!editable} onChange={(_e, v) => setIcon(v)} />
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
      {editable && (
        <ActionGroup>
          <Button type="submit" isLoading={data.save.isPending} isDisabled={data.save.isPending}>
            Update
          </Button>
          <DeleteButton
            title="Delete resource"
            message="Are you sure you want to delete this resource?"
            onConfirm={() =>
              data.remove.mutateAsync().then(
                () => (toast.success(`${team.name} deleted successfully`), navigate('/settings/teams')),
                (e: unknown) => toast.error(errorMessage(e)),
              )
            }
          />
        </ActionGroup>
      )}
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
  const canWrite = authorizer.can('database', 'write');
  return (
    <PageSection>
      {!isUiSource(team.source) && (
        <Alert isInline variant="info" title={`This team is managed outside the UI (${team.source}).`} className="pf-v6-u-mb-md" />
      )}
      <Tabs activeKey={tab} onSelect={(_e, key) => setTab(key)} aria-label="Team" mountOnEnter>
        <Tab eventKey="spec" title={<TabTitleText>Spec</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <SpecForm team={team} data={data} canWrite={canWrite} />
          </div>
        </Tab>
        <Tab eventKey="members" title={<TabTitleText>Members</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <TeamMembers data={data} canWrite={canWrite} />
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
