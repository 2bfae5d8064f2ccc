import { Alert, PageSection, Tab, TabTitleText, Tabs } from '@patternfly/react-core';
import { useState } from 'react';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { PageSpinner } from '../../components/PageSpinner';
import { RequireAccess } from '../../components/RequireAccess';
import { readOnlyMessage } from '../../lib/source';
import { ResourceJobHistory } from '../jobs/ResourceJobHistory';
import { createBody, isReadOnly, updateBody, type CanaryForm, type CanaryRow } from './checkSpec';
import type { CheckType } from './checkTypes';
import { CanaryEditor } from './CanaryEditor';
import { useCanaryData } from './useCanaryData';

const LIST = '/settings/canaries';

function Canary({ id }: { id?: string }) {
  const data = useCanaryData(id);
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const [tab, setTab] = useState<string | number>('spec');
  const row = data.canary.data ?? undefined;
  useTopBar(row ? `Health Check: ${row.name}` : 'Health Check', id ? data.canary.refetch : undefined, data.canary.isFetching);

  if (id && data.canary.isLoading) return <PageSpinner />;
  if (id && !row)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={data.canary.error ? errorMessage(data.canary.error) : 'No resources found'} />
      </PageSection>
    );

  const fail = (e: unknown) => toast.error(errorMessage(e));
  const done = (name: string, verb: string) => {
    toast.success(`${name} ${verb} successfully`);
    navigate(LIST);
  };
  const submit = (form: CanaryForm, type: CheckType) => {
    const name = form.name.trim();
    if (row) data.update.mutate(updateBody(form, type), { onSuccess: () => done(name, 'updated'), onError: fail });
    else data.create.mutate(createBody(form, type), { onSuccess: () => done(name, 'created'), onError: fail });
  };
  const editor = (canary: CanaryRow | undefined) => (
    <CanaryEditor
      key={canary?.updated_at}
      row={canary}
      readOnly={isReadOnly(canary) || !authorizer.can('canaries', 'write')}
      isBusy={data.create.isPending || data.update.isPending}
      onSubmit={submit}
      onDelete={() => data.remove.mutateAsync().then(() => done(canary?.name ?? '', 'deleted'), fail)}
      onLeave={() => navigate(LIST)}
    />
  );

  if (!row) return <PageSection>{editor(undefined)}</PageSection>;
  return (
    <PageSection>
      {isReadOnly(row) && <Alert isInline variant="info" title={readOnlyMessage(row.source)} className="pf-v6-u-mb-md" />}
      <Tabs activeKey={tab} onSelect={(_e, key) => setTab(key)} aria-label="Health check" mountOnEnter>
        <Tab eventKey="spec" title={<TabTitleText>Spec</TabTitleText>}>
          <div className="pf-v6-u-pt-md">{editor(row)}</div>
        </Tab>
        <Tab eventKey="jobs" title={<TabTitleText>Job History</TabTitleText>}>
          <div className="pf-v6-u-pt-md">
            <ResourceJobHistory resourceId={row.id} />
          </div>
        </Tab>
      </Tabs>
    </PageSection>
  );
}

/** A Health Check: /settings/canaries/new creates one, writers only. */
export default function CanaryPage() {
  const { id = '' } = useParams();
  const isNew = id === 'new';
  return (
    <RequireAccess resource="canaries" access={isNew ? 'write' : 'read'} feature="settings.health">
      <Canary id={isNew ? undefined : id} />
    </RequireAccess>
  );
}
