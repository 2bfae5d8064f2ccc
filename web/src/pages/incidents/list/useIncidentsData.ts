import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { dbCount, dbInsert, dbSelect, type Selected } from '../../../api/db';
import type { IncidentsInsert } from '../../../api/relations.gen';
import { PAGE_SIZES } from '../../../app/preferences';
import { keys } from '../../../app/queryKeys';
import { searchFilter, searchNumber } from '../../../lib/searchChanges';

const COLUMNS = ['id', 'incident_id', 'title', 'type', 'severity', 'status', 'created_at'] as const;
const EMBED = {
  commander: ['id', 'name', 'email'],
  created_by: ['id', 'name', 'email'],
} as const;

export type IncidentListRow = Selected<'incidents', (typeof COLUMNS)[number], typeof EMBED>;

/** The list's URL state; a filter left out means all. */
export interface IncidentsParams {
  status?: string;
  severity?: string;
  type?: string;
  /** Who opened the incident (created_by). */
  owner?: string;
  page: number;
  pageSize: number;
}

export function incidentsParams(search: URLSearchParams): IncidentsParams {
  return {
    status: searchFilter(search, 'status'),
    severity: searchFilter(search, 'severity'),
    type: searchFilter(search, 'type'),
    owner: searchFilter(search, 'owner'),
    page: searchNumber(search, 'page', 1),
    pageSize: searchNumber(search, 'pageSize', PAGE_SIZES[0]),
  };
}

/** The people who may own or command an incident. */
export function usePeople() {
  return useQuery({
    queryKey: [...keys.people, 'names'],
    queryFn: ({ signal }) => dbSelect('people', { columns: ['id', 'name', 'email'], order: 'name' }, signal),
  });
}

/** A page of incidents, newest first, for the filters; people for the owner
 * filter; and the create call. */
export function useIncidentsData(params: IncidentsParams) {
  const client = useQueryClient();
  const incidents = useQuery({
    queryKey: ['db', 'incidents', 'list', params],
    queryFn: ({ signal }) =>
      dbCount(
        'incidents',
        {
          columns: COLUMNS,
          embed: EMBED,
          status: params.status && `eq.${params.status}`,
          severity: params.severity && `eq.${params.severity}`,
          type: params.type && `eq.${params.type}`,
          created_by: params.owner && `eq.${params.owner}`,
          order: 'created_at.desc,id',
          limit: params.pageSize,
          offset: (params.page - 1) * params.pageSize,
        },
        signal,
      ),
    placeholderData: keepPreviousData,
  });
  const people = usePeople();
  const create = useMutation({
    mutationFn: async (incident: IncidentsInsert) => {
      const [row] = await dbInsert('incidents', incident);
      if (!row) throw new Error('The incident was not created');
      return row;
    },
    onSuccess: () => client.invalidateQueries({ queryKey: ['db', 'incidents'] }),
  });
  return { incidents, people, create };
}
