import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client';
import { keys } from './queryKeys';

/** The API's version and settings the console shows (`/api/about`), read once.
 * A 503 (database away) still answers them. */
export function useAbout() {
  return useQuery({
    queryKey: keys.about,
    queryFn: async () => {
      const { data, error } = await api.GET('/api/about');
      return data ?? error;
    },
    staleTime: Infinity,
    retry: false,
  });
}
