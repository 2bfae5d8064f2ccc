import { Badge, Button, Title } from '@patternfly/react-core';
import type { Schemas } from '../../../api/client';
import { ConfigIcon } from '../shared/ConfigIcon';

type TypeSummary = Schemas['TypeSummary'];

/** The items grouped by type with their counts; choosing one filters the
 * list to it, 'All types' clears the choice. */
export function TypeFacet({
  summary,
  selected,
  onSelect,
}: {
  summary: readonly TypeSummary[];
  selected: readonly string[];
  onSelect(types: string[]): void;
}) {
  const total = summary.reduce((n, t) => n + t.count, 0);
  const item = (key: string, label: React.ReactNode, count: number, isSelected: boolean, types: string[]) => (
    <li key={key}>
      <Button variant="plain" className="qd-catalog-type" aria-pressed={isSelected} onClick={() => onSelect(types)}>
        <span className="qd-catalog-type-name">{label}</span> <Badge isRead={!isSelected}>{count}</Badge>
      </Button>
    </li>
  );
  return (
    <nav aria-labelledby="qd-catalog-types" className="qd-catalog-types">
      <Title headingLevel="h2" size="md" id="qd-catalog-types">
        Types
      </Title>
      <ul>
        {item('', 'All types', total, selected.length === 0, [])}
        {summary.map((t) =>
          item(
            t.type,
            <>
              <ConfigIcon type={t.type} /> {t.type}
            </>,
            t.count,
            selected.length === 1 && selected[0] === t.type,
            [t.type],
          ),
        )}
      </ul>
    </nav>
  );
}
