import { Alert, Button, Divider, Stack, StackItem } from '@patternfly/react-core';
import { ssoErrorMessage, ssoStartHref } from '../../lib/sso';
import { useSsoButtons } from './useSsoButtons';

/** Why the last single sign-on failed (`?sso_error=`), above the forms. */
export function SsoError({ code }: { code: string | null }) {
  const message = ssoErrorMessage(code);
  return message ? <Alert isInline isPlain variant="danger" title={message} /> : null;
}

/** 'Sign in with {label}' for each enabled provider; the browser leaves for
 * the provider and comes back signed in to `returnTo`. */
export function SsoButtons({ returnTo }: { returnTo: string }) {
  const providers = useSsoButtons();
  const list = providers.data ?? [];
  if (list.length === 0) return null;
  return (
    <Stack hasGutter className="pf-v6-u-mt-md" aria-label="Single sign-on">
      <StackItem>
        <Divider />
      </StackItem>
      {list.map((p) => (
        <StackItem key={p.slug}>
          <Button component="a" variant="secondary" isBlock href={ssoStartHref(p.start_url, returnTo)}>
            Sign in with {p.label}
          </Button>
        </StackItem>
      ))}
    </Stack>
  );
}
