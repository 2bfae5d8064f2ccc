import { Breadcrumb, BreadcrumbItem, DescriptionList, Flex, FlexItem, Label, Title } from '@patternfly/react-core';
import type { UseQueryResult } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Schemas } from '../../../api/client';
import { HeaderDetail } from '../../../components/HeaderDetail';
import { relativeAge } from '../../../lib/healthFormat';
import { ConfigHealth } from '../shared/ConfigHealth';
import { AttachEvidenceButton } from '../../incidents/link/AttachEvidenceButton';
import { ConfigIcon } from '../shared/ConfigIcon';
import { TagRow } from '../shared/TagChips';
import { propertiesOf } from './properties';
import type { ConfigHeaderRow } from './useConfigData';

type Located = Schemas['LocatedConfig'];

/** An age with its exact time on hover. */
function Age({ term, value }: { term: string; value: string | null | undefined }) {
  const age = relativeAge(value);
  if (!age || !value) return null;
  return (
    <HeaderDetail term={term}>
      <time dateTime={value} title={value}>
        {age}
      </time>
    </HeaderDetail>
  );
}

/** The item's ancestors, root first, each linking to its page, then the item.
 * Nothing while they load or when the call fails: the page does not depend on it. */
function Parents({ row, parents }: { row: ConfigHeaderRow; parents: UseQueryResult<Located[]> }) {
  const rows = parents.data ?? [];
  if (rows.length === 0) return null;
  return (
    <Breadcrumb aria-label="Parents" className="pf-v6-u-mb-sm">
      {rows.map((p) => (
        <BreadcrumbItem key={p.id} render={() => <Link to={`/catalog/${p.id}`}>{p.name ?? p.id}</Link>} />
      ))}
      <BreadcrumbItem isActive>{row.name ?? row.id}</BreadcrumbItem>
    </Breadcrumb>
  );
}

/** The header of a config item's page: breadcrumb, name with type icon and
 * health, then type, status, labels, tags, properties and ages. */
export function ConfigHeader({ row, parents }: { row: ConfigHeaderRow; parents: UseQueryResult<Located[]> }) {
  const properties = propertiesOf(row.properties);
  const labels = (row.labels ?? {}) as Record<string, unknown>;
  const tags = (row.tags ?? {}) as Record<string, unknown>;
  return (
    <header className="qd-config-header">
      <Parents row={row} parents={parents} />
      <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }}>
        <FlexItem>
          <Title headingLevel="h2" size="2xl">
            <ConfigIcon type={row.type} /> {row.name ?? row.id}
          </Title>
        </FlexItem>
        <FlexItem>
          <ConfigHealth health={row.health} />
        </FlexItem>
        {row.deleted_at && (
          <FlexItem>
            <Label color="red" isCompact>
              Deleted
            </Label>
          </FlexItem>
        )}
        <FlexItem align={{ default: 'alignRight' }}>
          <AttachEvidenceButton subject={{ type: 'config', config_id: row.id }} />
        </FlexItem>
      </Flex>
      {row.description && <p className="pf-v6-u-mt-sm">{row.description}</p>}
      <DescriptionList isCompact isHorizontal isAutoFit className="pf-v6-u-mt-md">
        <HeaderDetail term="Type">{row.type}</HeaderDetail>
        {row.status && <HeaderDetail term="Status">{row.status}</HeaderDetail>}
        {row.agent_name && row.agent_name !== 'local' && <HeaderDetail term="Agent">{row.agent_name}</HeaderDetail>}
        <Age term="Created" value={row.created_at} />
        <Age term="Updated" value={row.updated_at} />
        <Age term="Deleted" value={row.deleted_at} />
        {properties.map((p) => (
          <HeaderDetail key={p.name} term={p.name}>
            {p.value}
            {p.links.map((l) => (
              <a key={l.url} href={l.url} target="_blank" rel="noopener noreferrer" className="pf-v6-u-ml-sm">
                {l.label}
              </a>
            ))}
          </HeaderDetail>
        ))}
      </DescriptionList>
      <TagRow tags={labels} label="Labels" />
      <TagRow tags={tags} label="Tags" />
    </header>
  );
}
