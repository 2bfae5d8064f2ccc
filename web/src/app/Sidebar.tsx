import { Nav, NavExpandable, NavItem, NavList, PageSidebar, PageSidebarBody, Skeleton } from '@patternfly/react-core';
import CogIcon from '@patternfly/react-icons/dist/esm/icons/cog-icon';
import type { Ref } from 'react';
import { NavLink, useLocation } from 'react-router';
import { visibleMain, visibleSettings, type NavItem as Entry } from './nav';
import type { Session } from './session';

function Link({ item, collapsed }: { item: Entry; collapsed: boolean }) {
  const { pathname } = useLocation();
  return (
    <NavItem isActive={pathname.startsWith(item.href)}>
      <NavLink to={item.href} aria-label={collapsed ? item.name : undefined} title={collapsed ? item.name : undefined}>
        <span className="pf-v6-c-nav__link-icon">{item.icon}</span>
        {!collapsed && <span className="pf-v6-c-nav__link-text">{item.name}</span>}
      </NavLink>
    </NavItem>
  );
}

/** Main entries plus the Settings group; a skeleton until the user is known. */
export function Sidebar({ session, collapsed, ref }: { session?: Session; collapsed: boolean; ref: Ref<HTMLDivElement> }) {
  const { pathname } = useLocation();
  const main = session ? visibleMain(session) : [];
  const settings = session ? visibleSettings(session) : [];
  return (
    <PageSidebar isSidebarOpen className={collapsed ? 'qd-sidebar qd-sidebar-collapsed' : 'qd-sidebar'}>
      <PageSidebarBody>
        <div ref={ref}>
          {!session ? (
            <div className="qd-sidebar-skeleton" aria-label="Loading menu">
              {[1, 2, 3, 4].map((i) => (
                <Skeleton key={i} height="1.5rem" screenreaderText="Loading" />
              ))}
            </div>
          ) : (
            <Nav aria-label="Main">
              <NavList>
                {main.map((item) => (
                  <Link key={item.href} item={item} collapsed={collapsed} />
                ))}
                {settings.length > 0 &&
                  (collapsed ? (
                    <>
                      <li className="qd-nav-group-icon" aria-hidden>
                        <CogIcon />
                      </li>
                      {settings.map((item) => (
                        <Link key={item.href} item={item} collapsed />
                      ))}
                    </>
                  ) : (
                    <NavExpandable title="Settings" groupId="settings" isActive={pathname.startsWith('/settings')} isExpanded>
                      {settings.map((item) => (
                        <Link key={item.href} item={item} collapsed={false} />
                      ))}
                    </NavExpandable>
                  ))}
              </NavList>
            </Nav>
          )}
        </div>
      </PageSidebarBody>
    </PageSidebar>
  );
}
