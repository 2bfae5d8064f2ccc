import { Breadcrumb, BreadcrumbItem, Button, DescriptionList, Flex, FlexItem, Title } from '@patternfly/react-core';
import DownloadIcon from '@patternfly/react-icons/dist/esm/icons/download-icon';
import { Link } from 'react-router';
import { DateTime } from '../../../components/DateTime';
import { HeaderDetail } from '../../../components/HeaderDetail';
import { TagRow } from '../../catalog/shared/TagChips';
import { ComponentIcon } from '../shared/ComponentIcon';
import { healthLabel } from '../shared/health';
import { HealthDot } from '../shared/HealthDot';
import type { TopologyComponent } from '../shared/types';
import type { Crumb } from './breadcrumbs';

/** The component's header: breadcrumbs up the tree, icon, name and health,
 * its status and why, type, owner, labels, and the snapshot download. */
export function ComponentHeader({
  component,
  trail,
  href,
  home,
}: {
  component: TopologyComponent;
  /** Its ancestors, root first. */
  trail: readonly Crumb[];
  /** Where a component's page is. */
  href: (id: string) => string;
  /** The dashboard, first in the breadcrumbs (none in the public view). */
  home?: string;
}) {
  const labels = component.labels ?? {};
  return (
    <header className="qd-component-header">
      <Breadcrumb aria-label="Breadcrumbs" className="pf-v6-u-mb-sm">
        {home && <BreadcrumbItem render={() => <Link to={home}>Topology</Link>} />}
        {trail.map((c) => (
          <BreadcrumbItem
            key={c.id}
            render={() => (
              <Link to={href(c.id)}>
                <ComponentIcon icon={c.icon} type={null} /> {c.name}
              </Link>
            )}
          />
        ))}
        <BreadcrumbItem isActive>{component.name}</BreadcrumbItem>
      </Breadcrumb>
      <Flex alignItems={{ default: 'alignItemsCenter' }} spaceItems={{ default: 'spaceItemsSm' }}>
        <FlexItem>
          <Title headingLevel="h2" size="2xl">
            <ComponentIcon icon={component.icon} type={component.type} /> {component.name}
          </Title>
        </FlexItem>
        <FlexItem>
          <HealthDot health={component.health} />
        </FlexItem>
        <FlexItem align={{ default: 'alignRight' }}>
          <Button
            component="a"
            variant="secondary"
            icon={<DownloadIcon />}
            href={`/api/snapshot/topology/${encodeURIComponent(component.id)}`}
            download
          >
            Download snapshot
          </Button>
        </FlexItem>
      </Flex>
      {component.text && <p className="pf-v6-u-mt-xs">{component.text}</p>}
      {component.description && <p className="pf-v6-u-mt-xs">{component.description}</p>}
      <DescriptionList isCompact isHorizontal isAutoFit className="pf-v6-u-mt-md">
        <HeaderDetail term="Status">
          {healthLabel(component.status)}
          {component.status_reason && `: ${component.status_reason}`}
        </HeaderDetail>
        {component.type && <HeaderDetail term="Type">{component.type}</HeaderDetail>}
        {component.owner && <HeaderDetail term="Owner">{component.owner}</HeaderDetail>}
        <HeaderDetail term="Updated">
          <DateTime value={component.updated_at ?? component.created_at} />
        </HeaderDetail>
      </DescriptionList>
      <TagRow tags={labels} label="Labels" />
    </header>
  );
}
