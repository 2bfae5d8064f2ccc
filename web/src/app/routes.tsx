import type { QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, type ComponentType } from 'react';
import { Navigate, createBrowserRouter, type Params, type RouteObject } from 'react-router';
import { PageSpinner } from '../components/PageSpinner';
import { RouteError } from './RouteError';

interface RouteHandle {
  preload?: () => Promise<unknown>;
  /** Starts the first page's data call with the shell's sign-in check
   * (signed out, its 401 leads to sign-in as whoami's does). */
  prefetch?: (client: QueryClient, params: Params, search: string) => Promise<unknown>;
}

/** A route element loaded as its own chunk (React.lazy), and a handle that
 * lets the first page start loading with the shell. Once its chunk is in,
 * the page renders directly: a lazy component would suspend once more, and
 * React holds a revealed Suspense fallback for 300 ms. */
function lazyRoute<P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
  props: P,
  ownSpinner = true,
  prefetch?: RouteHandle['prefetch'],
) {
  let Loaded: ComponentType<P> | undefined;
  const preload = () =>
    load().then((module) => {
      Loaded = module.default;
      return module;
    });
  const Lazy = lazy(preload);
  function Page() {
    return Loaded ? <Loaded {...props} /> : <Lazy {...props} />;
  }
  const element = ownSpinner ? (
    <Suspense fallback={<PageSpinner />}>
      <Page />
    </Suspense>
  ) : (
    <Page />
  );
  const handle: RouteHandle = { preload, prefetch };
  return { element, handle };
}

/** A page inside the shell, whose Suspense boundary is the shell's. */
const inShell = <P extends object>(
  load: () => Promise<{ default: ComponentType<P> }>,
  props = {} as P,
  prefetch?: RouteHandle['prefetch'],
) => lazyRoute(load, props, false, prefetch);

export const routes: RouteObject[] = [
  {
    errorElement: <RouteError />,
    children: [
      { path: '/login', ...lazyRoute(() => import('../pages/login/LoginPage'), {}) },
      { path: '/registration', ...lazyRoute(() => import('../pages/selfservice/RegistrationPage'), {}) },
      { path: '/recovery', ...lazyRoute(() => import('../pages/selfservice/RecoveryPage'), {}) },
      { path: '/verification', ...lazyRoute(() => import('../pages/selfservice/VerificationPage'), {}) },
      { path: '/error', ...lazyRoute(() => import('../pages/errors/ErrorPage'), {}) },
      { path: '/flow-error', ...lazyRoute(() => import('../pages/errors/FlowErrorPage'), {}) },
      { path: '/invite', ...lazyRoute(() => import('../pages/invite/SetPasswordPage'), { kind: 'invite' as const }) },
      { path: '/reset-password', ...lazyRoute(() => import('../pages/invite/SetPasswordPage'), { kind: 'reset' as const }) },
      { path: '/view/health', ...lazyRoute(() => import('../pages/health/HealthEmbed'), {}) },
      { path: '/view/topology/:id', ...lazyRoute(() => import('../pages/topology/view/TopologyPublicView'), {}) },
      {
        ...lazyRoute(() => import('./AppLayout'), {}),
        children: [
          { index: true, ...inShell(() => import('./HomeRedirect')) },
          {
            path: 'topology',
            ...inShell(
              () => import('../pages/topology/list/TopologyPage'),
              {},
              (client, _params, search) => import('../pages/topology/list/useTopologyData').then((m) => m.prefetchRoots(client, search)),
            ),
          },
          {
            path: 'topology/:id',
            ...inShell(
              () => import('../pages/topology/detail/ComponentPage'),
              {},
              (client, { id = '' }, search) =>
                import('../pages/topology/detail/useComponentData').then((m) => m.prefetchComponent(client, id, search)),
            ),
          },
          { path: 'health', ...inShell(() => import('../pages/health/HealthPage')) },
          { path: 'profile-settings', ...inShell(() => import('../pages/profile/ProfileSettingsPage')) },
          { path: 'incidents', ...inShell(() => import('../pages/incidents/list/IncidentsPage')) },
          { path: 'incidents/:id', ...inShell(() => import('../pages/incidents/detail/IncidentPage')) },
          { path: 'notifications', ...inShell(() => import('../pages/notifications/NotificationsPage')) },
          { path: 'notifications/rules', ...inShell(() => import('../pages/notifications/RulesPage')) },
          { path: 'notifications/resource/:resourceId', ...inShell(() => import('../pages/notifications/ResourceNotificationsPage')) },
          { path: 'notifications/silences', ...inShell(() => import('../pages/notifications/SilencesPage')) },
          { path: 'notifications/silences/add', ...inShell(() => import('../pages/notifications/SilenceAddPage')) },
          { path: 'playbooks', ...inShell(() => import('../pages/playbooks/list/PlaybooksPage')) },
          { path: 'playbooks/runs', ...inShell(() => import('../pages/playbooks/runs/RunsPage')) },
          { path: 'playbooks/runs/:id', ...inShell(() => import('../pages/playbooks/runs/RunPage')) },
          { path: 'playbooks/:id', ...inShell(() => import('../pages/playbooks/editor/PlaybookPage')) },
          { path: 'configs', element: <Navigate to="/catalog" replace /> },
          { path: 'catalog', ...inShell(() => import('../pages/catalog/list/CatalogPage')) },
          { path: 'catalog/changes', ...inShell(() => import('../pages/catalog/changes/ChangesPage')) },
          { path: 'catalog/insights', ...inShell(() => import('../pages/catalog/insights/InsightsPage')) },
          { path: 'catalog/scrapers', ...inShell(() => import('../pages/catalog/scrapers/ScrapersPage')) },
          { path: 'catalog/scrapers/:id', ...inShell(() => import('../pages/catalog/scrapers/ScraperPage')) },
          { path: 'catalog/:id/*', ...inShell(() => import('../pages/catalog/item/ConfigPage')) },
          { path: 'settings', element: <Navigate to="/settings/access-scopes" replace /> },
          { path: 'settings/access-scopes', ...inShell(() => import('../pages/access-scopes/AccessScopesPage')) },
          { path: 'settings/permissions', ...inShell(() => import('../pages/permissions/PermissionsPage')) },
          { path: 'settings/rules', ...inShell(() => import('../pages/rules/RulesPage')) },
          { path: 'settings/rules/:id', ...inShell(() => import('../pages/rules/RulePage')) },
          { path: 'settings/teams', ...inShell(() => import('../pages/teams/TeamsPage')) },
          { path: 'settings/teams/:id', ...inShell(() => import('../pages/teams/TeamPage')) },
          { path: 'settings/users', ...inShell(() => import('../pages/users/UsersPage')) },
          { path: 'settings/integrations', ...inShell(() => import('../pages/integrations/IntegrationsPage')) },
          { path: 'settings/integrations/:type/:id', ...inShell(() => import('../pages/integrations/IntegrationPage')) },
          { path: 'settings/connections', ...inShell(() => import('../pages/connections/ConnectionsPage')) },
          { path: 'settings/connections/:id', ...inShell(() => import('../pages/connections/ConnectionPage')) },
          { path: 'settings/canaries', ...inShell(() => import('../pages/canaries/CanariesPage')) },
          { path: 'settings/canaries/:id', ...inShell(() => import('../pages/canaries/CanaryPage')) },
          { path: 'settings/topology', ...inShell(() => import('../pages/topology/settings/TopologiesSettingsPage')) },
          { path: 'settings/topology/:id', ...inShell(() => import('../pages/topology/settings/TopologySettingsPage')) },
          { path: 'settings/jobs', ...inShell(() => import('../pages/jobs/JobHistoryPage')) },
          { path: 'settings/feature-flags', ...inShell(() => import('../pages/feature-flags/FeatureFlagsPage')) },
          { path: 'settings/tokens', ...inShell(() => import('../pages/tokens/TokensPage')) },
          { path: 'settings/single-sign-on', ...inShell(() => import('../pages/sso/SsoProvidersPage')) },
          { path: '*', ...inShell(() => import('../pages/errors/NotFoundPage')) },
        ],
      },
    ],
  },
];

export function createRouter(client: QueryClient) {
  const router = createBrowserRouter(routes);
  // The first page's chunk (and data, where it says) loads alongside the shell's instead of after the sign-in check.
  for (const match of router.state.matches) {
    const handle = match.route.handle as RouteHandle | undefined;
    void handle?.preload?.();
    void handle?.prefetch?.(client, match.params, router.state.location.search);
  }
  return router;
}
