import {
  Alert,
  Button,
  Card,
  CardBody,
  CardHeader,
  CardTitle,
  Content,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  Flex,
  FlexItem,
  PageSection,
  Title,
} from '@patternfly/react-core';
import { useState, type ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useToast } from '../../../app/toast';
import { useTopBar } from '../../../app/topBar';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { DateTime } from '../../../components/DateTime';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { PlaybookIcon } from '../PlaybookIcon';
import { playbookPath, runPath } from '../paths';
import { ActionArtifacts, type Artifact } from './ActionArtifacts';
import { ActionOutput } from './ActionOutput';
import { RunTarget } from './RunTarget';
import { StatusLabel, elapsed, isFinished } from './runStatus';
import { useRunData, type RunAction, type RunDetail } from './useRunData';

interface ApprovalSpec {
  type?: 'any' | 'all';
  approvers?: { people?: string[]; teams?: string[] };
}

const approvalOf = (run: RunDetail): ApprovalSpec | undefined => {
  const spec = run.spec as { approval?: ApprovalSpec } | null;
  return spec?.approval?.approvers ? spec.approval : undefined;
};

function Field({ term, children }: { term: string; children: ReactNode }) {
  return (
    <DescriptionListGroup>
      <DescriptionListTerm>{term}</DescriptionListTerm>
      <DescriptionListDescription>{children}</DescriptionListDescription>
    </DescriptionListGroup>
  );
}

function ActionCard({ action, artifacts }: { action: RunAction; artifacts: Artifact[] }) {
  return (
    <Card isCompact component="li" aria-label={`Action ${action.name}`}>
      <CardHeader>
        <CardTitle>
          <Flex spaceItems={{ default: 'spaceItemsSm' }} alignItems={{ default: 'alignItemsCenter' }}>
            <FlexItem>{action.name}</FlexItem>
            <FlexItem>
              <StatusLabel status={action.status} />
            </FlexItem>
            <FlexItem>
              <Content component="small">
                {elapsed(action.start_time, action.end_time)}
                {action.retry_count > 0 && ` · retried ${action.retry_count}×`}
              </Content>
            </FlexItem>
          </Flex>
        </CardTitle>
      </CardHeader>
      <CardBody>
        {action.error && <Alert isInline isPlain variant="danger" title={action.error} />}
        <ActionOutput result={action.result} />
        <ActionArtifacts action={action.name} artifacts={artifacts} />
      </CardBody>
    </Card>
  );
}

interface ApprovalsProps {
  run: RunDetail;
  approval: ApprovalSpec;
  approve: ReturnType<typeof useRunData>['approve'];
}

function Approvals({ run, approval, approve }: ApprovalsProps) {
  const toast = useToast();
  const people = approval.approvers?.people ?? [];
  const teams = approval.approvers?.teams ?? [];
  return (
    <section aria-label="Approval" className="pf-v6-u-mb-lg">
      <Title headingLevel="h2" size="lg" className="pf-v6-u-mb-sm">
        Approval
      </Title>
      <DescriptionList isHorizontal isCompact>
        <Field term="Type">{approval.type === 'all' ? 'Every approver' : 'Any approver'}</Field>
        {people.length > 0 && <Field term="People">{people.join(', ')}</Field>}
        {teams.length > 0 && <Field term="Teams">{teams.join(', ')}</Field>}
        <Field term="State">{run.status === 'pending_approval' ? 'Waiting for approval' : 'Approved'}</Field>
        {run.approvals.length > 0 && (
          <Field term="Approved by">
            <ul>
              {run.approvals.map((a) => (
                <li key={`${a.person_id ?? ''}-${a.team_id ?? ''}`}>
                  {a.person_name ?? a.person_email ?? a.person_id}
                  {a.team_name && ` (for ${a.team_name})`} <DateTime value={a.created_at} />
                </li>
              ))}
            </ul>
          </Field>
        )}
      </DescriptionList>
      {run.can_approve && (
        <Button
          className="pf-v6-u-mt-sm"
          isLoading={approve.isPending}
          isDisabled={approve.isPending}
          onClick={() =>
            approve.mutate(undefined, {
              onSuccess: () => toast.success('Playbook run approved'),
              onError: (e) => toast.error(errorMessage(e)),
            })
          }
        >
          Approve
        </Button>
      )}
    </section>
  );
}

function Run({ id }: { id: string }) {
  const { run: query, children, approve, cancel } = useRunData(id);
  const toast = useToast();
  const [confirming, setConfirming] = useState(false);
  const run = query.data;
  useTopBar(run?.playbook ? `Run: ${run.playbook.title}` : 'Playbook Run', query.refetch, query.isFetching);
  if (query.isLoading) return <PageSpinner />;
  if (!run)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={query.error ? errorMessage(query.error) : 'No resources found'} />
      </PageSection>
    );
  const approval = approvalOf(run);
  const parameters = Object.entries((run.parameters ?? {}) as Record<string, unknown>);

  return (
    <PageSection>
      <Flex className="pf-v6-u-mb-md" alignItems={{ default: 'alignItemsCenter' }}>
        <FlexItem>
          <StatusLabel status={run.status} />
        </FlexItem>
        {!isFinished(run.status) && (
          <FlexItem>
            <Content component="small">Updating live</Content>
          </FlexItem>
        )}
        {run.can_cancel && (
          <FlexItem align={{ default: 'alignRight' }}>
            <Button variant="danger" onClick={() => setConfirming(true)}>
              Cancel run
            </Button>
          </FlexItem>
        )}
      </Flex>
      <ConfirmDialog
        isOpen={confirming}
        title="Cancel run"
        message="Are you sure you want to cancel this run? Running actions are stopped."
        confirmLabel="Cancel run"
        isBusy={cancel.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          cancel.mutate(undefined, {
            onSuccess: () => toast.success('Playbook run cancelled'),
            onError: (e) => toast.error(errorMessage(e)),
            onSettled: () => setConfirming(false),
          })
        }
      />
      {run.error && <Alert isInline variant="danger" title={run.error} className="pf-v6-u-mb-md" />}
      <DescriptionList isHorizontal isCompact className="pf-v6-u-mb-lg" aria-label="Run">
        <Field term="Playbook">
          {run.playbook && (
            <>
              <PlaybookIcon icon={run.playbook.icon} /> <Link to={playbookPath(run.playbook.id)}>{run.playbook.title}</Link>
            </>
          )}
        </Field>
        <Field term="Target">
          <RunTarget run={run} />
        </Field>
        <Field term="Started By">{run.created_by_person?.name ?? ''}</Field>
        <Field term="Scheduled">
          <DateTime value={run.scheduled_time} />
        </Field>
        <Field term="Start Time">
          <DateTime value={run.start_time} />
        </Field>
        <Field term="Duration">{elapsed(run.start_time, run.end_time)}</Field>
        {run.parent_id && (
          <Field term="Parent run">
            <Link to={runPath(run.parent_id)}>{run.parent_id}</Link>
          </Field>
        )}
      </DescriptionList>
      {parameters.length > 0 && (
        <section aria-label="Parameters" className="pf-v6-u-mb-lg">
          <Title headingLevel="h2" size="lg" className="pf-v6-u-mb-sm">
            Parameters
          </Title>
          <DescriptionList isHorizontal isCompact>
            {parameters.map(([name, value]) => (
              <Field key={name} term={name}>
                {typeof value === 'string' ? value : JSON.stringify(value)}
              </Field>
            ))}
          </DescriptionList>
        </section>
      )}
      {approval && <Approvals run={run} approval={approval} approve={approve} />}
      <section aria-label="Actions" className="pf-v6-u-mb-lg">
        <Title headingLevel="h2" size="lg" className="pf-v6-u-mb-sm">
          Actions
        </Title>
        {run.actions.length === 0 ? (
          <Content component="p">No actions have run yet.</Content>
        ) : (
          <Flex component="ol" direction={{ default: 'column' }} spaceItems={{ default: 'spaceItemsSm' }}>
            {run.actions.map((a) => (
              <ActionCard key={a.id} action={a} artifacts={run.artifacts.filter((f) => f.playbook_run_action_id === a.id)} />
            ))}
          </Flex>
        )}
      </section>
      {children.data && children.data.length > 0 && (
        <section aria-label="Child runs">
          <Title headingLevel="h2" size="lg" className="pf-v6-u-mb-sm">
            Child runs
          </Title>
          <ul>
            {children.data.map((c) => (
              <li key={c.id}>
                <Link to={runPath(c.id)}>{c.id}</Link> <StatusLabel status={c.status} /> {elapsed(c.start_time, c.end_time)}
              </li>
            ))}
          </ul>
        </section>
      )}
    </PageSection>
  );
}

/** One run: its actions' timeline with their output, parameters, approval
 * (Approve for approvers), Cancel; live while it runs. */
export default function RunPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="playbook_runs" feature="playbooks">
      <Run id={id} />
    </RequireAccess>
  );
}
