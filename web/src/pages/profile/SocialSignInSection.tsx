import {
  Button,
  Card,
  CardBody,
  CardTitle,
  Content,
  DataList,
  DataListCell,
  DataListItem,
  DataListItemCells,
  DataListItemRow,
  DataListAction,
} from '@patternfly/react-core';
import { useEffect } from 'react';
import { errorMessage } from '../../api/errors';
import { ErrorPanel } from '../../components/ErrorPanel';
import { ssoErrorMessage, ssoStartHref } from '../../lib/sso';
import { FlashAlert } from './FlashAlert';
import { useFlash } from './useFlash';
import { useSocialSignIn } from './useSocialSignIn';

/** 'Manage Social Sign In': each enabled provider with the caller's account
 * there (Unlink) or a Link button, which goes through the provider and back.
 * A failed link comes back with `sso_error`. */
export function SocialSignInSection({ ssoError }: { ssoError: string | null }) {
  const { accounts, unlink } = useSocialSignIn();
  const [flash, setFlash] = useFlash();
  useEffect(() => {
    const message = ssoErrorMessage(ssoError);
    if (message) setFlash({ variant: 'danger', text: message });
  }, [ssoError, setFlash]);
  const data = accounts.data;
  const providers = data?.providers ?? [];
  const linked = data?.accounts ?? [];
  // Providers that were disabled still show the accounts linked through them.
  const slugs = [...new Set([...providers.map((p) => p.slug), ...linked.map((a) => a.provider)])];
  return (
    <Card isPlain>
      <CardTitle component="h2">Manage Social Sign In</CardTitle>
      <CardBody>
        <Content component="p">Sign in with an account at one of these providers instead of your password.</Content>
        <FlashAlert flash={flash} />
        {accounts.isError && <ErrorPanel error={accounts.error} />}
        {accounts.isSuccess && slugs.length === 0 && <Content component="p">No sign-in providers are set up.</Content>}
        {slugs.length > 0 && (
          <DataList aria-label="Social sign-in accounts" isCompact>
            {slugs.map((slug) => {
              const provider = providers.find((p) => p.slug === slug);
              const account = linked.find((a) => a.provider === slug);
              const label = provider?.label ?? account?.label ?? slug;
              return (
                <DataListItem key={slug} aria-labelledby={`sso-${slug}`}>
                  <DataListItemRow>
                    <DataListItemCells
                      dataListCells={[
                        <DataListCell key="label">
                          <span id={`sso-${slug}`}>{label}</span>
                        </DataListCell>,
                        <DataListCell key="account">{account ? `Linked: ${account.email ?? account.subject}` : 'Not linked'}</DataListCell>,
                      ]}
                    />
                    <DataListAction
                      id={`sso-${slug}-action`}
                      aria-labelledby={`sso-${slug} sso-${slug}-action`}
                      aria-label={`${label} actions`}
                    >
                      {account ? (
                        <Button
                          variant="secondary"
                          isDanger
                          aria-label={`Unlink ${label}`}
                          isLoading={unlink.isPending && unlink.variables === slug}
                          isDisabled={unlink.isPending}
                          onClick={() =>
                            unlink.mutate(slug, {
                              onSuccess: () => setFlash({ variant: 'success', text: `${label} unlinked.` }),
                              onError: (e) => setFlash({ variant: 'danger', text: errorMessage(e) }),
                            })
                          }
                        >
                          Unlink
                        </Button>
                      ) : provider ? (
                        <Button
                          component="a"
                          variant="secondary"
                          aria-label={`Link ${label}`}
                          href={ssoStartHref(provider.start_url, '/profile-settings', true)}
                        >
                          Link
                        </Button>
                      ) : null}
                    </DataListAction>
                  </DataListItemRow>
                </DataListItem>
              );
            })}
          </DataList>
        )}
      </CardBody>
    </Card>
  );
}
