import { Badge, Button, Title, Toolbar, ToolbarContent, ToolbarGroup, ToolbarItem } from '@patternfly/react-core';
import BellIcon from '@patternfly/react-icons/dist/esm/icons/bell-icon';
import SyncAltIcon from '@patternfly/react-icons/dist/esm/icons/sync-alt-icon';
import { useNavigate } from 'react-router';
import { useRecentFailures } from '../pages/notifications/useNotificationsData';
import { HelpMenu } from './HelpMenu';
import { PreferencesPopover } from './PreferencesPopover';
import { useSession } from './session';
import type { TopBarState } from './topBar';
import { UserMenu } from './UserMenu';

export function TopBar({ title, onRefresh, isLoading }: TopBarState) {
  const navigate = useNavigate();
  const { authorizer, isEnabled } = useSession();
  const failures = useRecentFailures(authorizer.can('notifications', 'read') && isEnabled('settings.notifications')).data ?? 0;
  return (
    <Toolbar isFullHeight isStatic>
      <ToolbarContent>
        <ToolbarItem>
          <Title headingLevel="h1" size="lg">
            {title}
          </Title>
        </ToolbarItem>
        {onRefresh && (
          <ToolbarItem>
            <Button
              variant="plain"
              aria-label="Refresh"
              isDisabled={isLoading}
              onClick={onRefresh}
              icon={<SyncAltIcon className={isLoading ? 'qd-spin' : undefined} />}
            />
          </ToolbarItem>
        )}
        <ToolbarGroup align={{ default: 'alignEnd' }}>
          <ToolbarItem>
            <Button
              variant="plain"
              component="a"
              href="/notifications"
              aria-label={failures > 0 ? `Notifications, ${failures} failed in the last day` : 'Notifications'}
              icon={<BellIcon />}
              onClick={(event) => {
                event.preventDefault();
                navigate('/notifications');
              }}
            >
              {failures > 0 && <Badge isRead={false}>{failures}</Badge>}
            </Button>
          </ToolbarItem>
          <ToolbarItem>
            <PreferencesPopover />
          </ToolbarItem>
          <ToolbarItem>
            <HelpMenu />
          </ToolbarItem>
          <ToolbarItem>
            <UserMenu />
          </ToolbarItem>
        </ToolbarGroup>
      </ToolbarContent>
    </Toolbar>
  );
}
