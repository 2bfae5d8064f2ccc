import { PageSection } from '@patternfly/react-core';
import { useNavigate, useParams } from 'react-router';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { useTopBar } from '../../app/topBar';
import { RequireAccess } from '../../components/RequireAccess';
import { ResourceEditor } from '../../components/resource-editor/ResourceEditor';
import { isUiSource } from '../../lib/source';
import { IntegrationPageShell } from '../integrations/IntegrationPageShell';
import { INCIDENT_RULE_KIND, RULES_PATH } from './ruleKind';
import { useRuleData, useRulesData } from './useRulesData';

function NewRule() {
  const { create } = useRulesData();
  const toast = useToast();
  const navigate = useNavigate();
  useTopBar('Rule: new');
  return (
    <PageSection>
      <ResourceEditor
        kind={INCIDENT_RULE_KIND}
        isBusy={create.isPending}
        onSubmit={(body) =>
          create.mutate(body, {
            onSuccess: () => (toast.success(`${String(body.name)} created successfully`), navigate(RULES_PATH)),
            onError: (e) => toast.error(errorMessage(e)),
          })
        }
        onCancel={() => navigate(RULES_PATH)}
      />
    </PageSection>
  );
}

function Rule({ id }: { id: string }) {
  const { row: query, update, remove } = useRuleData(id);
  const { authorizer } = useSession();
  const toast = useToast();
  const navigate = useNavigate();
  const fail = (e: unknown) => toast.error(errorMessage(e));
  const done = (name: string, verb: string) => (toast.success(`${name} ${verb} successfully`), navigate(RULES_PATH));
  return (
    <IntegrationPageShell label="Rule" query={query}>
      {(row) => (
        <ResourceEditor
          key={`${row.id}-${row.updated_at}`}
          kind={INCIDENT_RULE_KIND}
          row={row}
          readOnly={!isUiSource(row.source) || Boolean(row.deleted_at) || !authorizer.can('incident', 'write')}
          isBusy={update.isPending || remove.isPending}
          onSubmit={(body) => update.mutate(body, { onSuccess: () => done(row.name, 'updated'), onError: fail })}
          onCancel={() => navigate(RULES_PATH)}
          onDelete={() => remove.mutateAsync().then(() => done(row.name, 'deleted'), fail)}
        />
      )}
    </IntegrationPageShell>
  );
}

/** An incident rule in the generic resource editor (editable when written
 * from the UI, by a writer of incidents), or a new one. */
export default function RulePage() {
  const { id = '' } = useParams();
  return (
    <RequireAccess resource="incident" feature="settings.rules">
      {id === 'new' ? <NewRule /> : <Rule id={id} />}
    </RequireAccess>
  );
}
