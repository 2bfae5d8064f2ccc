import { Link } from 'react-router';
import { ConfigIcon } from './ConfigIcon';

/** A config item's name with its type icon, linking to its page. */
export function ConfigLink({ id, name, type }: { id: string; name: string | null | undefined; type?: string | null }) {
  return (
    <Link to={`/catalog/${id}`}>
      <ConfigIcon type={type} /> {name ?? id}
    </Link>
  );
}
