import { Card, CardHeader, CardTitle, EmptyState, Gallery, SearchInput } from '@patternfly/react-core';
import { useState } from 'react';
import { CONNECTION_TYPES } from '../../api/connections.gen';
import { offeredTypes } from './connectionForm';
import { TypeLabel } from './TypeIcon';

/** The Add Connection type list: sorted by title, searchable, JMeter hidden. */
export function TypeChooser({ onChoose }: { onChoose(type: string): void }) {
  const [search, setSearch] = useState('');
  const types = offeredTypes(CONNECTION_TYPES, search);
  return (
    <>
      <SearchInput
        aria-label="Search connection types"
        placeholder="Search"
        value={search}
        onChange={(_e, v) => setSearch(v)}
        onClear={() => setSearch('')}
        className="pf-v6-u-mb-md"
      />
      {types.length === 0 && <EmptyState titleText="No connection type matches" headingLevel="h3" variant="sm" />}
      <Gallery hasGutter minWidths={{ default: '12rem' }} aria-label="Connection types" role="list">
        {types.map((type) => (
          <div role="listitem" key={type.id}>
            <Card id={`connection-type-${type.id}`} isClickable isCompact>
              <CardHeader
                selectableActions={{
                  onClickAction: () => onChoose(type.id),
                  selectableActionId: `connection-type-${type.id}-action`,
                  selectableActionAriaLabelledby: `connection-type-${type.id}-title`,
                }}
              >
                <CardTitle id={`connection-type-${type.id}-title`}>
                  <TypeLabel type={type.id} />
                </CardTitle>
              </CardHeader>
            </Card>
          </div>
        ))}
      </Gallery>
    </>
  );
}
