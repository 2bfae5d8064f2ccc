import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbDelete, dbInsert, dbSelect, dbUpdate, type Selected } from '../../../api/db';
import type {
  CommentsInsert,
  EvidencesUpdate,
  HypothesesInsert,
  HypothesesUpdate,
  IncidentsUpdate,
  RespondersInsert,
} from '../../../api/relations.gen';
import { keys } from '../../../app/queryKeys';

const PERSON = ['id', 'name', 'email'] as const;
const INCIDENT_EMBED = { commander: PERSON, communicator: PERSON, created_by: PERSON } as const;
const HYPOTHESIS_COLUMNS = ['id', 'parent_id', 'type', 'title', 'status', 'created_at'] as const;
const EVIDENCE_COLUMNS = [
  'id',
  'hypothesis_id',
  'type',
  'description',
  'check_id',
  'config_id',
  'config_change_id',
  'component_id',
  'definition_of_done',
  'done',
  'created_at',
] as const;
const EVIDENCE_EMBED = {
  check: ['id', 'name'],
  config: ['id', 'name'],
  config_change: ['id', 'config_id', 'change_type', 'summary'],
  component: ['id', 'name'],
} as const;
const RESPONDER_EMBED = { person: PERSON, team: ['id', 'name'] } as const;

export type HypothesisRow = Selected<'hypotheses', (typeof HYPOTHESIS_COLUMNS)[number]>;
export type EvidenceRow = Selected<'evidences', (typeof EVIDENCE_COLUMNS)[number], typeof EVIDENCE_EMBED>;

/** Every query of one incident starts with this key: attaching evidence elsewhere invalidates it. */
export const incidentKey = (id: string) => ['db', 'incidents', 'detail', id] as const;

/** One incident with its hypotheses, their evidences, responders, comments and
 * history; people and teams for the pickers; and the writes of the page. */
export function useIncidentData(id: string) {
  const client = useQueryClient();
  const key = incidentKey(id);
  const incident = useQuery({
    queryKey: [...key, 'incident'],
    queryFn: async ({ signal }) => {
      const [row] = await dbSelect('incidents', { id: `eq.${id}`, embed: INCIDENT_EMBED }, signal);
      return row ?? null;
    },
  });
  const hypotheses = useQuery({
    queryKey: [...key, 'hypotheses'],
    queryFn: ({ signal }) =>
      dbSelect('hypotheses', { columns: HYPOTHESIS_COLUMNS, incident_id: `eq.${id}`, order: 'created_at,id' }, signal),
  });
  const hypothesisIds = (hypotheses.data ?? []).map((h) => h.id);
  const evidences = useQuery({
    queryKey: [...key, 'evidences', hypothesisIds],
    enabled: hypotheses.isSuccess,
    queryFn: ({ signal }) =>
      hypothesisIds.length === 0
        ? Promise.resolve([] as EvidenceRow[])
        : dbSelect(
            'evidences',
            { columns: EVIDENCE_COLUMNS, embed: EVIDENCE_EMBED, hypothesis_id: `in.(${hypothesisIds.join(',')})`, order: 'created_at,id' },
            signal,
          ),
  });
  const responders = useQuery({
    queryKey: [...key, 'responders'],
    queryFn: ({ signal }) =>
      dbSelect('responders', { columns: ['id', 'type'], embed: RESPONDER_EMBED, incident_id: `eq.${id}`, order: 'created_at,id' }, signal),
  });
  const comments = useQuery({
    queryKey: [...key, 'comments'],
    queryFn: ({ signal }) =>
      dbSelect(
        'comments',
        {
          columns: ['id', 'comment', 'hypothesis_id', 'created_at'],
          embed: { created_by: PERSON },
          incident_id: `eq.${id}`,
          order: 'created_at,id',
        },
        signal,
      ),
  });
  const history = useQuery({
    queryKey: [...key, 'history'],
    queryFn: ({ signal }) =>
      dbSelect(
        'incident_histories',
        {
          columns: ['id', 'type', 'description', 'created_at'],
          embed: { created_by: PERSON },
          incident_id: `eq.${id}`,
          order: 'created_at.desc,id',
        },
        signal,
      ),
  });
  const people = useQuery({
    queryKey: [...keys.people, 'names'],
    queryFn: ({ signal }) => dbSelect('people', { columns: ['id', 'name', 'email'], order: 'name' }, signal),
  });
  const teams = useQuery({
    queryKey: [...keys.teams, 'names'],
    queryFn: ({ signal }) => dbSelect('teams', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name' }, signal),
  });

  // Every write may add history (server triggers), so the whole incident reloads, and the list too.
  const settle = () => client.invalidateQueries({ queryKey: ['db', 'incidents'] });
  const useWrite = <T>(fn: (input: T) => Promise<unknown>) => useMutation({ mutationFn: fn, onSettled: settle });
  return {
    incident,
    hypotheses,
    evidences,
    responders,
    comments,
    history,
    people,
    teams,
    updateIncident: useWrite((changes: IncidentsUpdate) => dbUpdate('incidents', { id: `eq.${id}` }, changes)),
    addHypothesis: useWrite((h: HypothesesInsert) => dbInsert('hypotheses', { ...h, incident_id: id })),
    updateHypothesis: useWrite(({ hypothesis, changes }: { hypothesis: string; changes: HypothesesUpdate }) =>
      dbUpdate('hypotheses', { id: `eq.${hypothesis}` }, changes),
    ),
    // Its evidences, comments and child hypotheses go with it (the tables cascade, in the one statement).
    deleteHypothesis: useWrite((hypothesis: string) => dbDelete('hypotheses', { id: `eq.${hypothesis}` })),
    updateEvidence: useWrite(({ evidence, changes }: { evidence: string; changes: EvidencesUpdate }) =>
      dbUpdate('evidences', { id: `eq.${evidence}` }, changes),
    ),
    addResponder: useWrite((r: RespondersInsert) => dbInsert('responders', { ...r, incident_id: id })),
    addComment: useWrite((c: CommentsInsert) => dbInsert('comments', { ...c, incident_id: id })),
  };
}

export type IncidentData = ReturnType<typeof useIncidentData>;
