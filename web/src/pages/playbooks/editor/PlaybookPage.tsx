import { Alert, PageSection } from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { ApiError, errorMessage } from '../../../api/errors';
import type { Json } from '../../../api/relations.gen';
import { useSession } from '../../../app/session';
import { useToast } from '../../../app/toast';
import { useTopBar } from '../../../app/topBar';
import { PageSpinner } from '../../../components/PageSpinner';
import { RequireAccess } from '../../../components/RequireAccess';
import { isUiSource, readOnlyMessage } from '../../../lib/source';
import { PLAYBOOKS_PATH } from '../paths';
import { RunPlaybookButton } from '../run/RunPlaybookButton';
import { PlaybookForm, type PlaybookValues } from './PlaybookForm';
import { specColumns } from './playbookSpec';
import { usePlaybookData } from './usePlaybookData';

function Playbook({ id }: { id: string }) {
  const { isNew, row: query, create, update, remove } = usePlaybookData(id);
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const row = query.data;
  useTopBar(isNew ? 'Create Playbook' : row ? `Playbook: ${row.title}` : 'Playbook', isNew ? undefined : query.refetch, query.isFetching);
  if (!isNew && query.isLoading) return <PageSpinner />;
  if (!isNew && !row)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={query.error ? errorMessage(query.error) : 'No resources found'} />
      </PageSection>
    );
  const write = isNew ? create : update;
  const serverProblems = write.error instanceof ApiError ? write.error.fieldProblems : [];
  const done = (name: string, verb: string) => {
    toast.success(`${name} ${verb} successfully`);
    navigate(PLAYBOOKS_PATH);
  };
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const submit = ({ name, namespace, spec }: PlaybookValues) => {
    const columns = { spec: spec as Json, ...specColumns(name, spec) };
    if (isNew) create.mutate({ name, namespace, ...columns }, { onSuccess: () => done(name, 'created'), onError: fail });
    else update.mutate(columns, { onSuccess: () => done(name, 'updated'), onError: fail });
  };
  const readOnly = Boolean(row && (!isUiSource(row.source) || row.deleted_at)) || !authorizer.can('playbooks', 'write');

  return (
    <PageSection>
      {row && !isUiSource(row.source) && <Alert isInline variant="info" title={readOnlyMessage(row.source)} className="pf-v6-u-mb-md" />}
      {row?.deleted_at && <Alert isInline variant="warning" title="This resource has been deleted." className="pf-v6-u-mb-md" />}
      {row && !row.deleted_at && (
        <div className="pf-v6-u-mb-md">
          <RunPlaybookButton playbook={row} variant="primary" />
        </div>
      )}
      <PlaybookForm
        key={row ? `${row.id}-${row.updated_at}` : 'new'}
        initial={row ?? undefined}
        readOnly={readOnly}
        isBusy={write.isPending || remove.isPending}
        serverProblems={serverProblems}
        onSubmit={submit}
        onCancel={() => navigate(PLAYBOOKS_PATH)}
        onDelete={row ? () => remove.mutateAsync().then(() => done(row.name, 'deleted'), fail) : undefined}
      />
    </PageSection>
  );
}

/** A playbook's editor: a UI playbook for writers, read-only otherwise; 'new' creates one. */
export default function PlaybookPage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="playbooks" feature="playbooks">
      <Playbook id={id} />
    </RequireAccess>
  );
}
