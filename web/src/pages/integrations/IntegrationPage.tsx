import { Alert, PageSection } from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { RequireAccess } from '../../components/RequireAccess';
import { DIRECT, isDirectType, type DirectType } from '../../lib/integrations';
import { isUiSource } from '../../lib/source';
import { DirectForm } from './DirectForm';
import { IntegrationPageShell } from './IntegrationPageShell';
import { ScrapeNowButton } from './ScrapeNowButton';
import { useIntegrationData } from './useIntegrationData';

const LIST = '/settings/integrations';

function NotFound() {
  useTopBar('Integration');
  return (
    <PageSection>
      <Alert isInline variant="danger" title="No resources found" />
    </PageSection>
  );
}

function Integration({ type, id }: { type: DirectType; id: string }) {
  const { row: query, update, remove } = useIntegrationData(type, id);
  const toast = useToast();
  const navigate = useNavigate();
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const done = (name: string, verb: string) => (toast.success(`${name} ${verb} successfully`), navigate(LIST));
  return (
    <IntegrationPageShell
      label={DIRECT[type].label}
      query={query}
      actions={type === 'scraper' ? (row) => !row.deleted_at && <ScrapeNowButton id={row.id} /> : undefined}
    >
      {(row) => (
        <DirectForm
          key={row.id}
          type={type}
          row={row}
          readOnly={!isUiSource(row.source) || Boolean(row.deleted_at)}
          isBusy={update.isPending || remove.isPending}
          onSubmit={(body) => update.mutate(body, { onSuccess: () => done(row.name, 'updated'), onError: fail })}
          onCancel={() => navigate(LIST)}
          onDelete={() => remove.mutateAsync().then(() => done(row.name, 'deleted'), fail)}
        />
      )}
    </IntegrationPageShell>
  );
}

/** The edit page of a direct integration; writers only. */
export default function IntegrationPage() {
  const { type, id = '' } = useParams();
  return (
    <RequireAccess resource="integrations" access="write" feature="settings.integrations">
      {isDirectType(type) ? <Integration type={type} id={id} /> : <NotFound />}
    </RequireAccess>
  );
}
