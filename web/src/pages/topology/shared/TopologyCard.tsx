import { ComponentIcon } from './ComponentIcon';
import { healthColor, healthLabel } from './health';
import { HealthDot } from './HealthDot';
import { cardProperties, gaugeOf, propertyName, propertyText } from './properties';
import { childCounts, insightCount, insightTitle } from './summary';
import type { Property, TopologyComponent } from './types';
import './topology.css';

const SR = 'pf-v6-screen-reader';

/** A property's value: a bar (a meter named `name`, the property's label or
 * name unless told) when it is a gauge, a link for a url, else its text. */
export function PropertyValue({ property, name = propertyName(property) }: { property: Property; name?: string }) {
  const gauge = gaugeOf(property);
  if (gauge) {
    return (
      <span className="qd-topology-gauge">
        <span
          className="qd-topology-gauge-track"
          role="meter"
          aria-label={name}
          aria-valuemin={property.min ?? 0}
          aria-valuemax={property.max ?? 0}
          aria-valuenow={property.value ?? 0}
          aria-valuetext={gauge.text}
        >
          <span className={`qd-topology-gauge-bar qd-topology-gauge-${gauge.color}`} style={{ width: `${gauge.width}%` }} />
        </span>
        <span className="qd-topology-gauge-text">{gauge.text}</span>
      </span>
    );
  }
  const text = propertyText(property);
  if (property.type === 'url' && /^https?:\/\//.test(text)) {
    return (
      <a href={text} target="_blank" rel="noopener noreferrer">
        {text}
      </a>
    );
  }
  return <>{text}</>;
}

/** The summary line: direct children by health, checks (of the component and
 * its descendants) and open insights, the insights' severities in the title. */
function SummaryBadges({ component }: { component: TopologyComponent }) {
  const { summary } = component;
  const counts = childCounts(summary);
  const checks = summary?.checks ?? { healthy: 0, unhealthy: 0 };
  const insights = insightCount(summary?.insights);
  if (counts.length === 0 && checks.healthy + checks.unhealthy === 0 && insights === 0) return null;
  return (
    <ul className="qd-topology-badges" aria-label="Summary">
      {counts.map(({ health, count }) => (
        <li key={health} className="qd-topology-badge" title={`${count} ${health} ${count === 1 ? 'child' : 'children'}`}>
          <span className={`qd-status-dot qd-status-dot-${healthColor(health)}`} aria-hidden="true" />
          {count}
          <span className={SR}> {health}</span>
        </li>
      ))}
      {checks.healthy + checks.unhealthy > 0 && (
        <li className="qd-topology-badge" title={`Checks: ${checks.healthy} healthy, ${checks.unhealthy} unhealthy`}>
          Checks
          {checks.healthy > 0 && (
            <span className="qd-topology-count-green">
              {' '}
              {checks.healthy}
              <span className={SR}> healthy</span>
            </span>
          )}
          {checks.unhealthy > 0 && (
            <span className="qd-topology-count-red">
              {' '}
              {checks.unhealthy}
              <span className={SR}> unhealthy</span>
            </span>
          )}
        </li>
      )}
      {insights > 0 && (
        <li className="qd-topology-badge" title={insightTitle(summary.insights)}>
          Insights {insights}
        </li>
      )}
    </ul>
  );
}

/** A component's card: a plain element (pages show hundreds), coloured by its
 * health, with its properties (gauges as bars) and its summary. `href` is where
 * its name leads (the component page unless told); the name is a plain link,
 * which TopologyCards follows inside the app. */
export function TopologyCard({
  component,
  href = (id) => `/topology/${id}`,
}: {
  component: TopologyComponent;
  href?: (id: string) => string;
}) {
  const properties = cardProperties(component.properties);
  const showStatus = component.status && component.status !== component.health;
  return (
    <article className={`qd-topology-card qd-topology-card-${healthColor(component.health)}`} aria-label={component.name}>
      <header className="qd-topology-card-head">
        <ComponentIcon icon={component.icon} type={component.type} />
        <div className="qd-topology-card-title">
          <a href={href(component.id)} title={component.tooltip ?? component.description ?? undefined}>
            {component.name}
          </a>
          {component.text && <div className="qd-topology-card-text">{component.text}</div>}
        </div>
        {component.hidden && <span className="qd-topology-badge">Hidden</span>}
        <HealthDot health={component.health} />
      </header>
      {(showStatus || component.status_reason) && (
        <p className="qd-topology-card-status">
          {showStatus && <strong>{healthLabel(component.status)}</strong>}
          {showStatus && component.status_reason && ': '}
          {component.status_reason}
        </p>
      )}
      {properties.length > 0 && (
        <dl className="qd-topology-props">
          {properties.map((property, i) => {
            const name = propertyName(property);
            return (
              <div
                key={`${property.name}-${i}`}
                className={property.headline ? 'qd-topology-prop-headline' : undefined}
                title={property.tooltip ?? undefined}
              >
                <dt>{name}</dt>
                <dd>
                  <PropertyValue property={property} name={name} />
                </dd>
              </div>
            );
          })}
        </dl>
      )}
      <SummaryBadges component={component} />
    </article>
  );
}
