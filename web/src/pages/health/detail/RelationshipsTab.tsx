import { EmptyState, Label, List, ListItem, Title } from '@patternfly/react-core';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { CheckIcon } from './CheckIcon';
import { Loading } from './Loading';
import type { CheckRelationships } from './useCheckDetailData';

/** The components and catalog items the check is related to. */
export function RelationshipsTab({ relationships }: { relationships: UseQueryResult<CheckRelationships> }) {
  if (relationships.isLoading) return <Loading />;
  if (relationships.error) return <ErrorPanel error={relationships.error} />;
  const { components = [], configs = [] } = relationships.data ?? {};
  if (components.length + configs.length === 0) {
    return <EmptyState titleText="No data available" headingLevel="h3" variant="sm" />;
  }
  return (
    <>
      {components.length > 0 && (
        <section aria-labelledby="check-related-components">
          <Title headingLevel="h3" size="md" id="check-related-components">
            Components
          </Title>
          <List isPlain>
            {components.map((c) => (
              <ListItem key={c.id} icon={<CheckIcon icon={c.icon} type="component" />}>
                <Link to={`/topology/${c.id}`}>{c.name}</Link>
              </ListItem>
            ))}
          </List>
        </section>
      )}
      {configs.length > 0 && (
        <section aria-labelledby="check-related-configs" className="qd-check-section">
          <Title headingLevel="h3" size="md" id="check-related-configs">
            Configs
          </Title>
          <List isPlain>
            {configs.map((c) => (
              <ListItem key={c.id}>
                <Link to={`/catalog/${c.id}`}>{c.name ?? c.id}</Link> <Label isCompact>{c.type}</Label>
              </ListItem>
            ))}
          </List>
        </section>
      )}
    </>
  );
}
