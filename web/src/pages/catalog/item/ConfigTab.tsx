import { Button, CodeBlock, CodeBlockCode, EmptyState, Spinner, ToggleGroup, ToggleGroupItem } from '@patternfly/react-core';
import CopyIcon from '@patternfly/react-icons/dist/esm/icons/copy-icon';
import type { UseQueryResult } from '@tanstack/react-query';
import { useCopyToClipboard } from '../../../app/clipboard';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { PageSpinner } from '../../../components/PageSpinner';
import { FORMATS, formatOf } from './configText';
import { useConfigText } from './useConfigText';
import { useLiveSearchParams } from '../../../app/useLiveSearchParams';

/** The scraped document as YAML or JSON (`?format=json`), with a copy
 * button. Secrets arrive masked: the scraper masks them before storing. */
export function ConfigTab({ config }: { config: UseQueryResult<unknown> }) {
  const [params, setParams] = useLiveSearchParams();
  const format = formatOf(params.get('format'));
  const text = useConfigText(config.data, format);
  const copyToClipboard = useCopyToClipboard();
  if (config.isLoading) return <PageSpinner />;
  if (config.error) return <ErrorPanel error={config.error} />;
  if (config.data === null || config.data === undefined) return <EmptyState titleText="No data available" headingLevel="h3" variant="sm" />;

  const setFormat = (f: string) =>
    setParams(
      (p) => {
        const next = new URLSearchParams(p);
        if (f === 'YAML') next.delete('format');
        else next.set('format', f.toLowerCase());
        return next;
      },
      { replace: true },
    );
  const copy = () => void copyToClipboard(text ?? '');
  return (
    <CodeBlock
      className="qd-config-code"
      actions={
        <>
          <ToggleGroup isCompact aria-label="Config format">
            {FORMATS.map((f) => (
              <ToggleGroupItem key={f} text={f} buttonId={`config-format-${f}`} isSelected={format === f} onChange={() => setFormat(f)} />
            ))}
          </ToggleGroup>
          <Button variant="plain" aria-label="Copy config" icon={<CopyIcon />} onClick={copy} isDisabled={text === undefined} />
        </>
      }
    >
      {text === undefined ? (
        <Spinner size="lg" aria-label="Writing YAML" />
      ) : (
        <CodeBlockCode role="region" aria-label={`Config as ${format}`} tabIndex={0}>
          {text}
        </CodeBlockCode>
      )}
    </CodeBlock>
  );
}
