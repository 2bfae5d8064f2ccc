import {
  Alert,
  DescriptionList,
  DescriptionListDescription,
  DescriptionListGroup,
  DescriptionListTerm,
  PageSection,
} from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { CreatedUpdated } from '../../components/CreatedUpdated';
import { PageSpinner } from '../../components/PageSpinner';
import { RequireAccess } from '../../components/RequireAccess';
import { DIRECT, isDirectType, type DirectType } from '../../lib/integrations';
import { isUiSource, readOnlyMessage, sourceLabel } from '../../lib/source';
import { DirectForm } from './DirectForm';
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
  const row = query.data;
  const { label } = DIRECT[type];
  useTopBar(row ? `${label}: ${row.name}` : label, query.refetch, query.isFetching);
  if (query.isLoading) return <PageSpinner />;
  if (!row)
    return (
      <PageSection>
        <Alert isInline variant="danger" title={query.error ? errorMessage(query.error) : 'No resources found'} />
      </PageSection>
    );
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const readOnly = !isUiSource(row.source) || Boolean(row.deleted_at);
  return (
    <PageSection>
      {!isUiSource(row.source) && <Alert isInline variant="info" title={readOnlyMessage(row.source)} className="pf-v6-u-mb-md" />}
      {row.deleted_at && <Alert isInline variant="warning" title="This resource has been deleted." className="pf-v6-u-mb-md" />}
      {type === 'scraper' && !row.deleted_at && (
        <div className="pf-v6-u-mb-md">
          <ScrapeNowButton id={row.id} />
        </div>
      )}
      <DescriptionList isHorizontal isCompact className="pf-v6-u-mb-lg" aria-label="Details">
        <DescriptionListGroup>
          <DescriptionListTerm>Source</DescriptionListTerm>
          <DescriptionListDescription>{sourceLabel(row.source)}</DescriptionListDescription>
        </DescriptionListGroup>
        <CreatedUpdated row={row} />
      </DescriptionList>
      <DirectForm
        key={row.id}
        type={type}
        row={row}
        readOnly={readOnly}
        isBusy={update.isPending || remove.isPending}
        onSubmit={(body) =>
          update.mutate(body, {
            onSuccess: () => (toast.success(`${row.name} updated successfully`), navigate(LIST)),
            onError: fail,
          })
        }
        onCancel={() => navigate(LIST)}
        onDelete={() => remove.mutateAsync().then(() => (toast.success(`${row.name} deleted successfully`), navigate(LIST)), fail)}
      />
    </PageSection>
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
