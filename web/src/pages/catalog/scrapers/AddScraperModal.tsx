import { Modal, ModalBody, ModalHeader } from '@patternfly/react-core';
import { useNavigate } from 'react-router';
import { errorMessage } from '../../../api/errors';
import { useToast } from '../../../app/toast';
import { addIntegrationTitle, DIRECT } from '../../../lib/integrations';
import { ScraperForm } from '../../integrations/ScraperForm';
import { scraperPath } from './scraperList';
import { useAddScraper } from './useScrapersData';

/** The Add Integration modal opened at its Catalog Scraper form; the new
 * scraper's page opens once it is saved. */
export function AddScraperModal({ onClose }: { onClose(): void }) {
  const create = useAddScraper();
  const toast = useToast();
  const navigate = useNavigate();
  return (
    <Modal variant="large" isOpen onClose={onClose} aria-labelledby="add-scraper-title">
      <ModalHeader title={addIntegrationTitle(DIRECT.scraper.label)} labelId="add-scraper-title" />
      <ModalBody>
        <ScraperForm
          isBusy={create.isPending}
          onCancel={onClose}
          onSubmit={(body) =>
            create.mutate(body, {
              onSuccess: ([row]) => {
                toast.success(`${String(body.name)} created successfully`);
                onClose();
                if (row) navigate(scraperPath(row.id));
              },
              onError: (e) => toast.error(errorMessage(e)),
            })
          }
        />
      </ModalBody>
    </Modal>
  );
}
