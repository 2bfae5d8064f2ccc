import { CodeBlock, CodeBlockCode, Content, EmptyState, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import type { UseQueryResult } from '@tanstack/react-query';
import { useState } from 'react';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { sourceLabel } from '../../../lib/source';
import { toYaml } from '../../../lib/yamlText';
import { Loading } from './Loading';
import type { CanaryDefinition } from './useCheckDetailData';

const FORMATS = ['YAML', 'JSON'] as const;

/** The canary's spec, read-only, as YAML or JSON. */
export function SpecTab({ canary }: { canary: UseQueryResult<CanaryDefinition | null> }) {
  const [format, setFormat] = useState<(typeof FORMATS)[number]>('YAML');
  if (canary.isLoading) return <Loading />;
  if (canary.error) return <ErrorPanel error={canary.error} />;
  const row = canary.data;
  if (!row) return <EmptyState titleText="No details found" headingLevel="h3" variant="sm" />;
  const text = format === 'YAML' ? toYaml(row.spec) : JSON.stringify(row.spec, null, 2);
  return (
    <>
      <Content component="p">
        Canary {row.namespace}/{row.name}, from {sourceLabel(row.source)}
      </Content>
      <CodeBlock
        actions={
          <ToggleGroup isCompact aria-label="Spec format">
            {FORMATS.map((f) => (
              <ToggleGroupItem key={f} text={f} buttonId={`check-spec-${f}`} isSelected={format === f} onChange={() => setFormat(f)} />
            ))}
          </ToggleGroup>
        }
      >
        <CodeBlockCode role="region" aria-label="Canary spec" tabIndex={0}>
          {text}
        </CodeBlockCode>
      </CodeBlock>
    </>
  );
}
