import { Label, List, ListItem, Spinner, Title } from '@patternfly/react-core';
import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { ConfigHealth } from '../../catalog/shared/ConfigHealth';
import { ConfigLink } from '../../catalog/shared/ConfigLink';
import { StatusDot } from '../../health/StatusDot';
import { cardProperties } from '../shared/properties';
import { PropertyValue } from '../shared/TopologyCard';
import type { Property } from '../shared/types';
import type { ComponentData } from './useComponentData';

type Rows<D extends keyof ComponentData> = ComponentData[D] extends UseQueryResult<infer T> ? T : never;

/** One titled section of the panel: its rows, a spinner while they load, the
 * error's message when the call fails, 'No data available' when there are none. */
function Section<T>({
  title,
  query,
  children,
}: {
  title: string;
  query: Pick<UseQueryResult<T[]>, 'data' | 'isLoading' | 'error'>;
  children: (rows: T[]) => ReactNode;
}) {
  const rows = query.data ?? [];
  let body;
  if (query.isLoading) body = <Spinner size="md" aria-label={`Loading ${title.toLowerCase()}`} />;
  else if (query.error) body = <p className="pf-v6-u-danger-color-100">{errorMessage(query.error)}</p>;
  else if (rows.length === 0) body = <p className="qd-component-panel-empty">No data available</p>;
  else body = children(rows);
  return (
    <section aria-label={title} className="qd-component-panel-section">
      <Title headingLevel="h3" size="md">
        {title}
        {rows.length > 0 && <span className="qd-component-panel-count"> ({rows.length})</span>}
      </Title>
      {body}
    </section>
  );
}

/** Where a check opens: this page with the check detail dialog on top. */
function checkSearch(search: string, checkId: string): string {
  const params = new URLSearchParams(search);
  params.set('checkId', checkId);
  params.set('timeRange', '1h');
  return `?${params}`;
}

export function ChecksSection({ query }: { query: ComponentData['checks'] }) {
  const { search } = useLocation();
  return (
    <Section title="Checks" query={query}>
      {(rows: Rows<'checks'>) => (
        <List isPlain>
          {rows.map((c) => (
            <ListItem key={c.id}>
              <StatusDot status={c.status} /> <Link to={{ search: checkSearch(search, c.id) }}>{c.name}</Link>
            </ListItem>
          ))}
        </List>
      )}
    </Section>
  );
}

export function ConfigsSection({ query }: { query: ComponentData['configs'] }) {
  return (
    <Section title="Configs" query={query}>
      {(rows: Rows<'configs'>) => (
        <List isPlain>
          {rows.map((c) => (
            <ListItem key={c.id}>
              <ConfigHealth health={c.health} /> <ConfigLink id={c.id} name={c.name} type={c.type} />
            </ListItem>
          ))}
        </List>
      )}
    </Section>
  );
}

export function InsightsSection({ query }: { query: ComponentData['insights'] }) {
  return (
    <Section title="Insights" query={query}>
      {(rows: Rows<'insights'>) => (
        <List isPlain>
          {rows.map((a) => (
            <ListItem key={a.id}>
              {a.severity && <Label isCompact>{a.severity}</Label>} {a.summary || a.message || a.analyzer}
              <div className="qd-component-panel-sub">
                <ConfigLink id={a.config_id} name={a.config_name} type={a.config_type} />
                {a.analysis_type && <> · {a.analysis_type}</>}
              </div>
            </ListItem>
          ))}
        </List>
      )}
    </Section>
  );
}

export function TeamsSection({ query }: { query: ComponentData['teams'] }) {
  return (
    <Section title="Teams" query={query}>
      {(rows: Rows<'teams'>) => (
        <List isPlain>
          {rows.map((t) => (
            <ListItem key={t.id}>
              {t.name}
              {t.role && (
                <>
                  {' '}
                  <Label isCompact>{t.role}</Label>
                </>
              )}
            </ListItem>
          ))}
        </List>
      )}
    </Section>
  );
}

export function PropertiesSection({ properties }: { properties: readonly Property[] | null }) {
  return (
    <Section title="Properties" query={{ data: cardProperties(properties), isLoading: false, error: null }}>
      {(rows: Property[]) => (
        <dl className="qd-component-properties">
          {rows.map((p, i) => {
            const name = p.label || p.name;
            return (
              <div key={`${p.name}-${i}`} title={p.tooltip ?? undefined}>
                <dt>{name}</dt>
                <dd>
                  <PropertyValue property={p} name={name} />
                </dd>
              </div>
            );
          })}
        </dl>
      )}
    </Section>
  );
}
