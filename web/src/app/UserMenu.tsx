import { Divider, DropdownGroup, DropdownItem, DropdownList } from '@patternfly/react-core';
import UserCircleIcon from '@patternfly/react-icons/dist/esm/icons/user-circle-icon';
import { lazy, Suspense, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { api } from '../api/client';
import { IconMenu } from '../components/IconMenu';
import { loginPath } from '../lib/requestErrors';
import { KubeconfigModal } from './KubeconfigModal';
import { useAbout } from './about';
import { useToast } from './toast';
import { useSession } from './session';
import { versionLine } from './version';

// The token dialogs load on first use, keeping tables and tabs out of the shell's chunk.
const McpSetupFlow = lazy(() => import('../pages/tokens/McpSetupFlow'));

export function UserMenu() {
  const { user, authorizer } = useSession();
  const [kubeconfig, setKubeconfig] = useState(false);
  const [mcpSetup, setMcpSetup] = useState(false);
  const navigate = useNavigate();
  const location = useLocation();
  const toast = useToast();
  const about = useAbout();

  const signOut = async () => {
    toast.loading('Signing out...');
    try {
      await api.POST('/api/auth/logout');
    } finally {
      // A failed logout still goes to sign-in, coming back here afterwards.
      window.location.assign(loginPath(location.pathname + location.search));
    }
  };

  return (
    <>
      <IconMenu label="User menu" icon={<UserCircleIcon />} text={user.name}>
        {(close) => (
          <DropdownGroup label={`Hi ${user.name}`}>
            <DropdownList>
              <DropdownItem
                onClick={() => navigate(`/profile-settings?return_to=${encodeURIComponent(location.pathname + location.search)}`)}
              >
                Your Profile
              </DropdownItem>
              {authorizer.can('kubernetes-proxy', 'write') && (
                <DropdownItem onClick={() => (close(), setKubeconfig(true))}>Download kubeconfig</DropdownItem>
              )}
              <DropdownItem onClick={() => (close(), setMcpSetup(true))}>Setup MCP</DropdownItem>
              <DropdownItem isDisabled>{versionLine(about.data?.version)}</DropdownItem>
              <Divider component="li" />
              <DropdownItem onClick={() => void signOut()}>Sign out</DropdownItem>
            </DropdownList>
          </DropdownGroup>
        )}
      </IconMenu>
      {kubeconfig && <KubeconfigModal onClose={() => setKubeconfig(false)} />}
      {mcpSetup && (
        <Suspense fallback={null}>
          <McpSetupFlow onClose={() => setMcpSetup(false)} />
        </Suspense>
      )}
    </>
  );
}
