import { ActionGroup, Button, Card, CardBody, CardTitle, Content } from '@patternfly/react-core';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { FlashAlert } from './FlashAlert';
import { useFlash } from './useFlash';

/** 'Sessions': sign out every other browser session (tokens stay). */
export function SessionsSection() {
  const [flash, setFlash] = useFlash();
  const signOut = useMutation({
    mutationFn: () => unwrap(api.POST('/api/profile/sign_out_everywhere')),
    onMutate: () => setFlash(undefined),
    onSuccess: ({ revoked }) =>
      setFlash({ variant: 'success', text: revoked === 1 ? 'Signed out of 1 other session.' : `Signed out of ${revoked} other sessions.` }),
    onError: (error) => setFlash({ variant: 'danger', text: errorMessage(error) }),
  });
  return (
    <Card isPlain>
      <CardTitle component="h2">Sessions</CardTitle>
      <CardBody>
        <Content component="p">Signs you out of every other browser; this one and your access tokens stay.</Content>
        <FlashAlert flash={flash} />
        <ActionGroup>
          <Button
            variant="secondary"
            isDanger
            isLoading={signOut.isPending}
            isDisabled={signOut.isPending}
            onClick={() => signOut.mutate()}
          >
            Sign out everywhere else
          </Button>
        </ActionGroup>
      </CardBody>
    </Card>
  );
}
