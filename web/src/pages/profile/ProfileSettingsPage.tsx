import { PageSection, Stack, StackItem } from '@patternfly/react-core';
import { Link, useSearchParams } from 'react-router';
import { useTopBar } from '../../app/topBar';
import { safeReturnTo } from '../../lib/loginFlow';
import { PasswordSection } from './PasswordSection';
import { ProfileSection } from './ProfileSection';
import { SessionsSection } from './SessionsSection';
import { SocialSignInSection } from './SocialSignInSection';
import { BackupCodesSection } from './BackupCodesSection';
import { SecurityKeysSection } from './SecurityKeysSection';
import { TotpSection } from './TotpSection';
import { useSecondFactors } from './useSecondFactors';

/** /profile-settings: the signed-in person's own settings. Someone an admin
 * requires to have a second factor can use only the authenticator and
 * security key sections until they enrol one (the other sections' calls
 * answer 403 till then). */
export default function ProfileSettingsPage() {
  const [params] = useSearchParams();
  useTopBar('Your Profile');
  const factors = useSecondFactors();
  return (
    <PageSection>
      <Stack hasGutter>
        <StackItem>
          <Link to={safeReturnTo(params.get('return_to'))}>Go back</Link>
        </StackItem>
        <StackItem>
          <ProfileSection />
        </StackItem>
        <StackItem>
          <PasswordSection />
        </StackItem>
        <StackItem>
          <SessionsSection />
        </StackItem>
        <StackItem>
          <SocialSignInSection ssoError={params.get('sso_error')} />
        </StackItem>
        <StackItem>
          <BackupCodesSection factors={factors} />
        </StackItem>
        <StackItem>
          <TotpSection factors={factors} />
        </StackItem>
        <StackItem>
          <SecurityKeysSection factors={factors} />
        </StackItem>
      </Stack>
    </PageSection>
  );
}
