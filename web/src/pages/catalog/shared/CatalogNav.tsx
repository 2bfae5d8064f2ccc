import { Nav, NavItem, NavList } from '@patternfly/react-core';
import { NavLink, useLocation } from 'react-router';
import { isVisible, type NavItem as Entry } from '../../../app/nav';
import { useSession } from '../../../app/session';

/** The catalog's own screens, in the order a user moves through them. */
const ENTRIES: Omit<Entry, 'icon'>[] = [
  { name: 'Items', href: '/catalog', featureName: 'config', resourceName: 'database' },
  { name: 'Changes', href: '/catalog/changes', featureName: 'config', resourceName: 'database' },
  { name: 'Insights', href: '/catalog/insights', featureName: 'config', resourceName: 'database' },
  { name: 'Scrapers', href: '/catalog/scrapers', featureName: 'settings.config_scraper', resourceName: 'config_scrapers' },
];

/** The sub-navigation between the catalog's list screens (decision 66.1). */
export function CatalogNav() {
  const session = useSession();
  const { pathname } = useLocation();
  const entries = ENTRIES.filter((e) => isVisible({ ...e, icon: null }, session));
  return (
    <Nav variant="horizontal-subnav" aria-label="Catalog">
      <NavList>
        {entries.map((e) => {
          const active = e.href === '/catalog' ? pathname === '/catalog' : pathname.startsWith(e.href);
          return (
            <NavItem key={e.href} isActive={active}>
              <NavLink to={e.href} end={e.href === '/catalog'} aria-current={active ? 'page' : undefined}>
                {e.name}
              </NavLink>
            </NavItem>
          );
        })}
      </NavList>
    </Nav>
  );
}
