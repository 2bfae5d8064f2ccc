import { Card, CardHeader, CardTitle, Gallery } from '@patternfly/react-core';
import { CHECK_TYPES, type CheckType } from './checkTypes';

/** The check-type tiles, sorted by label. */
export function CheckTypeGrid({ onChoose }: { onChoose(type: CheckType): void }) {
  return (
    <Gallery hasGutter minWidths={{ default: '11rem' }} aria-label="Check types" role="list">
      {CHECK_TYPES.map((type) => (
        <div role="listitem" key={type.id}>
          <Card id={`check-type-${type.id}`} isClickable isCompact>
            <CardHeader
              selectableActions={{
                onClickAction: () => onChoose(type),
                selectableActionId: `check-type-${type.id}-action`,
                selectableActionAriaLabelledby: `check-type-${type.id}-title`,
              }}
            >
              <CardTitle id={`check-type-${type.id}-title`}>{type.label}</CardTitle>
            </CardHeader>
          </Card>
        </div>
      ))}
    </Gallery>
  );
}
