import { useEffect, useMemo, useState } from 'react';
import { LARGE_CONFIG, toJsonText, toYamlText, type Format } from './configText';

/** The config as text in `format`: undefined while a large config is being
 * written as YAML in a worker, so the page stays responsive. */
export function useConfigText(config: unknown, format: Format): string | undefined {
  const json = useMemo(() => toJsonText(config), [config]);
  const large = json.length > LARGE_CONFIG && typeof Worker !== 'undefined';
  const smallYaml = useMemo(() => (format === 'YAML' && !large ? toYamlText(config) : undefined), [config, format, large]);
  const [largeYaml, setLargeYaml] = useState<{ config: unknown; text: string }>();

  useEffect(() => {
    if (format !== 'YAML' || !large || largeYaml?.config === config) return;
    const worker = new Worker(new URL('./configYaml.worker.ts', import.meta.url), { type: 'module' });
    worker.onmessage = (event: MessageEvent<string>) => {
      setLargeYaml({ config, text: event.data });
      worker.terminate();
    };
    worker.postMessage(config);
    return () => worker.terminate();
  }, [config, format, large, largeYaml]);

  if (format === 'JSON') return json;
  if (!large) return smallYaml;
  return largeYaml && largeYaml.config === config ? largeYaml.text : undefined;
}
