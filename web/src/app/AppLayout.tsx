import { Button, Masthead, MastheadBrand, MastheadContent, MastheadMain, MastheadToggle, Page } from '@patternfly/react-core';
import BarsIcon from '@patternfly/react-icons/dist/esm/icons/bars-icon';
import { Suspense, useEffect, useRef, useState } from 'react';
import { Link, Outlet } from 'react-router';
import { PageSpinner } from '../components/PageSpinner';
import { usePreference } from './preferences';
import { SessionContext, useSessionData } from './session';
import { SessionGate } from './SessionGate';
import { Sidebar } from './Sidebar';
import { TopBar } from './TopBar';
import { TopBarContext, type TopBarState } from './topBar';

/** Below this width the sidebar collapses by itself. */
const NARROW_PX = 1024;

/** The signed-in shell: top bar, sidebar and the current page. */
export default function AppLayout() {
  const { session, error } = useSessionData();
  const [collapsedByUser, setCollapsedByUser] = usePreference('sidebarCollapsed');
  // Narrow windows collapse the sidebar without changing the saved preference.
  const [collapsedByWidth, setCollapsedByWidth] = useState(() => window.innerWidth < NARROW_PX);
  const collapsed = collapsedByUser || collapsedByWidth;
  const [topBar, setTopBar] = useState<TopBarState>({ title: '' });
  const sidebarRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const onResize = () => setCollapsedByWidth(window.innerWidth < NARROW_PX);
    const onMouseDown = (event: MouseEvent) => {
      if (window.innerWidth < NARROW_PX && !sidebarRef.current?.contains(event.target as Node)) setCollapsedByWidth(true);
    };
    window.addEventListener('resize', onResize);
    document.addEventListener('mousedown', onMouseDown);
    return () => {
      window.removeEventListener('resize', onResize);
      document.removeEventListener('mousedown', onMouseDown);
    };
  }, []);

  const toggle = () => {
    setCollapsedByWidth(false);
    setCollapsedByUser(!collapsed);
  };

  const masthead = (
    <Masthead>
      <MastheadMain>
        <MastheadToggle>
          <Button
            variant="plain"
            aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
            icon={<BarsIcon />}
            onMouseDown={(e) => e.stopPropagation()}
            onClick={toggle}
          />
        </MastheadToggle>
        <MastheadBrand>
          <Link to="/" className="qd-logo">
            Quarterdeck
          </Link>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>{session && <TopBar {...topBar} />}</MastheadContent>
    </Masthead>
  );

  return (
    <SessionContext.Provider value={session ?? null}>
      <TopBarContext.Provider value={setTopBar}>
        <Page
          className={collapsed ? 'qd-page qd-collapsed' : 'qd-page'}
          masthead={masthead}
          sidebar={<Sidebar session={session} collapsed={collapsed} ref={sidebarRef} />}
        >
          <SessionGate session={session} error={error}>
            <Suspense fallback={<PageSpinner />}>
              <Outlet />
            </Suspense>
          </SessionGate>
        </Page>
      </TopBarContext.Provider>
    </SessionContext.Provider>
  );
}
