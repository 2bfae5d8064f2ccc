import { Button } from '@patternfly/react-core';
import SyncAltIcon from '@patternfly/react-icons/dist/esm/icons/sync-alt-icon';
import { useMutation } from '@tanstack/react-query';
import type { SyntheticEvent } from 'react';
import { api, unwrap } from '../../api/client';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';

/** Whether the caller may ask for a scrape: the server requires update on config_scrapers. */
export function useCanScrape(): boolean {
  return useSession().authorizer.can('config_scrapers', 'update');
}

/** Clicks on the button do not reach a clickable row around it. */
const keepInside = (e: SyntheticEvent) => e.stopPropagation();

/** "Scrape now": asks the operator to run the scraper at once; its Job
 * History row (ScraperRun) tells how it went. Hidden from those who may not. */
export function ScrapeNowButton({ id, isDisabled = false }: { id: string; isDisabled?: boolean }) {
  const canScrape = useCanScrape();
  const toast = useToast();
  const run = useMutation({
    mutationFn: () => unwrap(api.POST('/api/scrapers/{id}/run', { params: { path: { id } } })),
    onSuccess: () => toast.success('Scrape queued'),
    onError: (e) => toast.error(errorMessage(e)),
  });
  if (!canScrape) return null;
  return (
    <span onClick={keepInside} onKeyDown={keepInside}>
      <Button
        variant="secondary"
        size="sm"
        icon={<SyncAltIcon />}
        isDisabled={isDisabled || run.isPending}
        isLoading={run.isPending}
        spinnerAriaValueText="Queueing"
        onClick={() => run.mutate()}
      >
        Scrape now
      </Button>
    </span>
  );
}
