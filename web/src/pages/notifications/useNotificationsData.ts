import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbCount, dbInsert, dbSelect, dbSoftDelete, dbUpdate, type Selected } from '../../api/db';
import { api, unwrap } from '../../api/client';
import type { Row } from '../../api/relations.gen';
import type { components } from '../../api/schema';
import { keys } from '../../app/queryKeys';
import {
  historyRequest,
  type HistoryParams,
  type ResourceSelector,
  type RuleColumns,
  type SilenceBody,
  type SilenceTarget,
} from './notificationModel';

const KEY = ['db', 'notifications'] as const;
const HISTORY_KEY = ['db', 'notification_send_history'] as const;
const SILENCES_KEY = ['db', 'notification_silences'] as const;

/** A send history row as `POST /api/notification/summary` and the silence preview answer it
 * (the generated type leaves them untyped: they are the data API view's). */
export type SendRow = Row<'notification_send_history_summary'>;

/** `*` in PostgREST patterns; the user's own `*`, `,` and parentheses are kept out. */
const pattern = (text: string) => `*${text.replace(/[*,()]/g, ' ').trim()}*`;

/** A page of the send history, newest first, for the URL's filters, with the total; or one resource's sends. */
export function useSendHistory(params: HistoryParams, resourceId?: string) {
  const body = historyRequest(params, resourceId);
  return useQuery({
    queryKey: [...HISTORY_KEY, 'summary', body],
    queryFn: async ({ signal }) => {
      const page = await unwrap(api.POST('/api/notification/summary', { body, signal }));
      return { rows: page.results as SendRow[], total: page.total };
    },
    placeholderData: keepPreviousData,
  });
}

/** How far back the bell counts failures. */
export const RECENT_FAILURES_HOURS = 24;

/** The number of failed sends of the last day, for the top bar's bell. */
export function useRecentFailures(enabled: boolean) {
  return useQuery({
    queryKey: [...HISTORY_KEY, 'recent-failures'],
    enabled,
    queryFn: async ({ signal }) => {
      const since = new Date(Date.now() - RECENT_FAILURES_HOURS * 3_600_000).toISOString();
      const { total } = await dbCount(
        'notification_send_history',
        { columns: ['id'], status: 'eq.failed', created_at: `gte.${since}`, limit: 1 },
        signal,
      );
      return total;
    },
    refetchInterval: 60_000,
  });
}

export type RuleSummary = Row<'notifications_summary'>;
export type RuleRow = Row<'notifications'>;

/** The live rules with their send counts, by name, and their writes. */
export function useRulesData() {
  const client = useQueryClient();
  const invalidate = () => client.invalidateQueries({ queryKey: KEY });
  const rules = useQuery({
    queryKey: [...KEY, 'list'],
    queryFn: ({ signal }) => dbSelect('notifications_summary', { order: 'name.asc' }, signal),
  });
  const create = useMutation({
    mutationFn: (columns: RuleColumns) => dbInsert('notifications', columns),
    onSuccess: invalidate,
  });
  const update = useMutation({
    mutationFn: ({ id, columns }: { id: string; columns: RuleColumns }) => dbUpdate('notifications', { id: `eq.${id}` }, columns),
    onSuccess: invalidate,
  });
  const remove = useMutation({ mutationFn: (id: string) => dbSoftDelete('notifications', id), onSuccess: invalidate });
  return { rules, create, update, remove };
}

/** One rule's columns, for its form. */
export function useRule(id: string | undefined) {
  return useQuery({
    queryKey: [...KEY, 'one', id],
    enabled: id !== undefined,
    queryFn: async ({ signal }) => {
      const [row] = await dbSelect('notifications', { id: `eq.${id}` }, signal);
      if (!row) throw new Error('The notification rule was not found');
      return row;
    },
  });
}

/** Who and what a rule may send to: people, teams, notification connections, playbooks. */
export function useRecipientOptions(enabled: boolean) {
  const people = useQuery({
    queryKey: [...keys.people, 'names'],
    enabled,
    queryFn: ({ signal }) => dbSelect('people', { columns: ['id', 'name', 'email'], order: 'name' }, signal),
  });
  const teams = useQuery({
    queryKey: [...keys.teams, 'names'],
    enabled,
    queryFn: ({ signal }) => dbSelect('teams', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name' }, signal),
  });
  const connections = useQuery({
    queryKey: ['db', 'connections', 'names'],
    enabled,
    queryFn: ({ signal }) => dbSelect('connections', { columns: ['id', 'name', 'namespace', 'type'], order: 'name' }, signal),
  });
  const playbooks = useQuery({
    queryKey: ['db', 'playbooks', 'names'],
    enabled,
    queryFn: ({ signal }) => dbSelect('playbooks', { columns: ['id', 'name'], deleted_at: 'is.null', order: 'name' }, signal),
  });
  return { people, teams, connections, playbooks };
}

const SILENCE_EMBED = {
  check: ['id', 'name'],
  config: ['id', 'name'],
  component: ['id', 'name'],
  canary: ['id', 'name'],
  created_by: ['id', 'name', 'email'],
} as const;

export type SilenceRow = Selected<
  'notification_silences',
  keyof import('../../api/relations.gen').NotificationSilencesRow & string,
  typeof SILENCE_EMBED
>;

/** The silences not deleted, newest first, and deleting one (sets deleted_at). */
export function useSilencesData() {
  const client = useQueryClient();
  const silences = useQuery({
    queryKey: [...SILENCES_KEY, 'list'],
    queryFn: ({ signal }) =>
      dbSelect('notification_silences', { embed: SILENCE_EMBED, deleted_at: 'is.null', order: 'created_at.desc' }, signal),
  });
  const remove = useMutation({
    mutationFn: (id: string) => dbSoftDelete('notification_silences', id),
    onSuccess: () => client.invalidateQueries({ queryKey: SILENCES_KEY }),
  });
  return { silences, remove };
}

/** Adding a silence through the spec's call, which reads the resource's kind and the duration itself. */
export function useCreateSilence() {
  const client = useQueryClient();
  return useMutation({
    // The generated type reads the schema's `items: {type: object}` as objects without properties.
    mutationFn: (body: SilenceBody) =>
      unwrap(api.POST('/api/notification/silence', { body: body as Omit<SilenceBody, 'selectors'> & { selectors: never[] | null } })),
    onSuccess: () => client.invalidateQueries({ queryKey: SILENCES_KEY }),
  });
}

/** What `GET /api/notification/silence_preview` answers, its rows typed. */
type SilencePreview = Omit<components['schemas']['SilencePreview'], 'results'> & { results: SendRow[] };

/** The past sends a silence of these matchers would have held, by the engine's own matcher (decision 90.3). */
export function useSilencePreview(id: string, filter: string, selectors: ResourceSelector[] | null, recursive: boolean) {
  const selectorsText = selectors ? JSON.stringify(selectors) : '';
  return useQuery({
    queryKey: ['notification', 'silence_preview', id, filter, selectorsText, recursive],
    enabled: id !== '' || filter !== '' || selectorsText !== '',
    queryFn: async ({ signal }) =>
      (await unwrap(
        api.GET('/api/notification/silence_preview', {
          params: { query: { id: id || undefined, filter: filter || undefined, selectors: selectorsText || undefined, recursive } },
          signal,
        }),
      )) as SilencePreview,
    placeholderData: keepPreviousData,
  });
}

function selectTargets(kind: SilenceTarget, filters: { id?: string; name?: string }, signal: AbortSignal) {
  const query = { columns: ['id', 'name'] as const, ...filters, deleted_at: 'is.null', order: 'name', limit: 50 };
  switch (kind) {
    case 'check':
      return dbSelect('checks', query, signal);
    case 'config':
      return dbSelect('config_items', query, signal);
    case 'component':
      return dbSelect('components', query, signal);
  }
}

/** The resources of a kind a silence may name, by name. */
export function useSilenceTargets(kind: SilenceTarget, search: string) {
  return useQuery({
    queryKey: ['silence-targets', kind, search],
    queryFn: ({ signal }) => selectTargets(kind, { name: search.trim() ? `ilike.${pattern(search)}` : undefined }, signal),
    placeholderData: keepPreviousData,
  });
}

/** The resource a silence names, for its label. */
export function useSilenceTarget(kind: SilenceTarget, id: string) {
  return useQuery({
    queryKey: ['silence-targets', kind, 'id', id],
    enabled: id !== '',
    queryFn: ({ signal }) => selectTargets(kind, { id: `eq.${id}` }, signal),
  });
}
