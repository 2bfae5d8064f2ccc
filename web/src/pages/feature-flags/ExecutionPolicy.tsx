import { Card, CardBody, CardTitle, Content, Switch } from '@patternfly/react-core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap, type Schemas } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';

const KEY = ['settings', 'execution-policy'] as const;

/** The execution policy's switch: admins change it, everyone else sees it.
 * The server refuses non-admins whatever this shows. */
export function ExecutionPolicy() {
  const { authorizer } = useSession();
  const queryClient = useQueryClient();
  const toast = useToast();
  const policy = useQuery({ queryKey: KEY, queryFn: ({ signal }) => unwrap(api.GET('/api/settings/execution-policy', { signal })) });
  const save = useMutation({
    mutationFn: (body: Schemas['ExecutionPolicyBody']) => unwrap(api.PUT('/api/settings/execution-policy', { body })),
    onSuccess: (saved) => queryClient.setQueryData(KEY, saved),
    onError: (e: unknown) => toast.error(errorMessage(e)),
  });
  const allowed = policy.data?.allowConsoleScripts ?? false;
  return (
    <Card isCompact className="pf-v6-u-mb-md">
      <CardTitle>Execution policy</CardTitle>
      <CardBody>
        <Switch
          id="allow-console-scripts"
          label="Allow scripts from the console"
          isChecked={allowed}
          isDisabled={!authorizer.isAdmin || !policy.isSuccess || save.isPending}
          onChange={(_e, checked) => save.mutate({ allowConsoleScripts: checked })}
        />
        <Content component="p" className="pf-v6-u-mt-sm">
          Exec health checks of canaries written in the console run only while this is on; canaries from Kubernetes always run.
          {!authorizer.isAdmin && ' Only admins can change it.'}
        </Content>
        {policy.isError && <Content component="p">{errorMessage(policy.error)}</Content>}
      </CardBody>
    </Card>
  );
}
