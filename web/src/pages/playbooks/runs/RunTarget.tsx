import { Link } from 'react-router';

interface Named {
  id: string;
  name?: string | null;
}

/** What a run is about, linked: a config item, a component or a check. */
export function RunTarget({ run }: { run: { config?: Named | null; component?: Named | null; check?: Named | null } }) {
  if (run.config) return <Link to={`/catalog/${run.config.id}`}>{run.config.name ?? run.config.id}</Link>;
  if (run.component) return <Link to={`/topology/${run.component.id}`}>{run.component.name ?? run.component.id}</Link>;
  if (run.check) return <Link to={`/health?checkId=${run.check.id}&timeRange=1h`}>{run.check.name ?? run.check.id}</Link>;
  return null;
}
