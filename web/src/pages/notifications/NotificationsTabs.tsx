import { Tab, Tabs, TabTitleText } from '@patternfly/react-core';
import { useNavigate } from 'react-router';
import { NOTIFICATIONS_PATH, RULES_PATH, SILENCES_PATH } from './notificationModel';

const TABS = [
  { path: NOTIFICATIONS_PATH, title: 'Notifications' },
  { path: RULES_PATH, title: 'Rules' },
  { path: SILENCES_PATH, title: 'Silences' },
];

/** The notifications area's three lists. */
export function NotificationsTabs({ active }: { active: string }) {
  const navigate = useNavigate();
  return (
    <Tabs activeKey={active} onSelect={(_e, key) => navigate(String(key))} aria-label="Notifications views">
      {TABS.map((t) => (
        <Tab key={t.path} eventKey={t.path} title={<TabTitleText>{t.title}</TabTitleText>} />
      ))}
    </Tabs>
  );
}
