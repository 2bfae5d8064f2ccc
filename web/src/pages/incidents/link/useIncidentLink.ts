import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbInsert, dbSelect } from '../../../api/db';
import { useDebounced } from '../../../app/useDebounced';
import { nameFilter } from '../../catalog/scrapers/scraperList';
import { DEFAULT_HYPOTHESIS_STATUS } from '../incidentModel';
import type { EvidenceSubject, LinkForm, Pick } from './linkForm';

/** Spec part 2 section 9: incident lookup debounce. */
export const INCIDENT_LOOKUP_MS = 100;

/** Incidents whose title holds the typed text (the newest first); the chosen incident's hypotheses; and the link flow. */
export function useIncidentLink(incidentText: string, incident: Pick | null) {
  const client = useQueryClient();
  const term = useDebounced(incidentText.trim(), INCIDENT_LOOKUP_MS);
  const incidents = useQuery({
    queryKey: ['db', 'incidents', 'lookup', term],
    queryFn: ({ signal }) => {
      // Title, INC id or description (decision 86.11).
      const like = nameFilter(term);
      return dbSelect(
        'incidents',
        {
          columns: ['id', 'incident_id', 'title', 'status'],
          or: like && `(title.${like},incident_id.${like},description.${like})`,
          order: 'created_at.desc',
          limit: 20,
        },
        signal,
      ).catch(() => []);
    },
  });
  const incidentId = incident?.kind === 'existing' ? incident.id : undefined;
  const hypotheses = useQuery({
    queryKey: ['db', 'incidents', 'detail', incidentId, 'hypotheses', 'lookup'],
    enabled: Boolean(incidentId),
    queryFn: ({ signal }) =>
      dbSelect('hypotheses', { columns: ['id', 'title', 'type'], incident_id: `eq.${incidentId}`, order: 'created_at,id' }, signal).catch(
        () => [],
      ),
  });

  /** Creates the incident if new, then a root hypothesis if new or none, then attaches the evidence.
   * Which step failed decides what the dialog does, so the error says it. */
  const link = useMutation({
    mutationFn: async ({ form, subject }: { form: LinkForm; subject: EvidenceSubject }) => {
      const chosen = form.incident;
      if (!chosen) throw new LinkError('incident', new Error('no incident'));
      let incidentId: string;
      if (chosen.kind === 'existing') incidentId = chosen.id;
      else {
        const [row] = await dbInsert('incidents', {
          title: chosen.title,
          description: form.description,
          severity: form.severity,
          type: form.type,
        }).catch((e: unknown) => Promise.reject(new LinkError('incident', e)));
        if (!row) throw new LinkError('incident', new Error('the incident was not created'));
        incidentId = row.id;
      }
      let hypothesisId: string;
      if (form.hypothesis?.kind === 'existing') hypothesisId = form.hypothesis.id;
      else {
        const [row] = await dbInsert('hypotheses', {
          incident_id: incidentId,
          title: form.hypothesis?.title || chosen.title,
          status: DEFAULT_HYPOTHESIS_STATUS,
          type: 'root',
        }).catch((e: unknown) => Promise.reject(new LinkError('hypothesis', e)));
        if (!row) throw new LinkError('hypothesis', new Error('the hypothesis was not created'));
        hypothesisId = row.id;
      }
      await dbInsert('evidences', { ...subject, hypothesis_id: hypothesisId, description: form.description }).catch((e: unknown) =>
        Promise.reject(new LinkError('evidence', e, incidentId)),
      );
      return incidentId;
    },
    onSettled: () => client.invalidateQueries({ queryKey: ['db', 'incidents'] }),
  });
  return { incidents, hypotheses, link };
}

/** A failed step of the link flow; `incidentId` once the incident exists. */
export class LinkError extends Error {
  constructor(
    readonly step: 'incident' | 'hypothesis' | 'evidence',
    readonly reason: unknown,
    readonly incidentId?: string,
  ) {
    super(`${step}: ${reason instanceof Error ? reason.message : String(reason)}`);
  }
}
