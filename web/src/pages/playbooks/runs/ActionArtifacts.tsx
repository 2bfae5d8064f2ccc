import { List, ListItem, Title } from '@patternfly/react-core';
import DownloadIcon from '@patternfly/react-icons/dist/esm/icons/download-icon';
import type { Schemas } from '../../../api/client';

export type Artifact = Schemas['Artifact'];

const units = ['B', 'KiB', 'MiB', 'GiB'];

/** 1536 → "1.5 KiB". */
export function size(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

export const downloadPath = (id: string) => `/api/artifacts/download/${encodeURIComponent(id)}`;

/** The files an action kept (`exec.artifacts`), each a download link. */
export function ActionArtifacts({ action, artifacts }: { action: string; artifacts: Artifact[] }) {
  if (artifacts.length === 0) return null;
  return (
    <>
      <Title headingLevel="h4" size="md" className="pf-v6-u-mt-sm">
        Artifacts
      </Title>
      <List isPlain aria-label={`Artifacts of ${action}`}>
        {artifacts.map((a) => (
          <ListItem key={a.id} icon={<DownloadIcon />}>
            <a href={downloadPath(a.id)} download={a.filename} aria-label={`Download ${a.path}`}>
              {a.path}
            </a>{' '}
            <small>
              {size(a.size)}
              {a.content_type ? ` · ${a.content_type}` : ''}
            </small>
          </ListItem>
        ))}
      </List>
    </>
  );
}
