import {
  Alert,
  Button,
  Card,
  CardBody,
  CardHeader,
  CardTitle,
  Gallery,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  Skeleton,
  Title,
} from '@patternfly/react-core';
import { useState } from 'react';
import { errorMessage } from '../../api/errors';
import { useSession } from '../../app/session';
import { useToast } from '../../app/toast';
import { addIntegrationTitle, type DirectType } from '../../lib/integrations';
import { DirectForm } from './DirectForm';
import { GitOpsForm } from './GitOpsForm';
import { useGitOpsOptions, type GitOpsOption } from './useGitOpsData';
import { useIntegrationsData } from './useIntegrationsData';

interface DirectOption {
  type: DirectType;
  label: string;
  description: string;
}

const DIRECT_OPTIONS: readonly DirectOption[] = [
  { type: 'topology', label: 'Custom Topology', description: 'A tree of components built from checks, catalog items and lookups.' },
  { type: 'scraper', label: 'Catalog Scraper', description: 'Fills the catalog from clusters, clouds, files and APIs.' },
  { type: 'logging_backend', label: 'Log Backends', description: 'Where log searches go: Loki, OpenSearch, CloudWatch, …' },
];

type Choice = { kind: 'gitops'; option: GitOpsOption } | ({ kind: 'direct' } & DirectOption);

function Tile({ id, title, description, onClick }: { id: string; title: string; description: string; onClick(): void }) {
  return (
    <Card id={`tile-${id}`} isClickable isCompact>
      <CardHeader
        selectableActions={{
          onClickAction: onClick,
          selectableActionId: `tile-${id}-action`,
          selectableActionAriaLabelledby: `tile-${id}-title`,
        }}
      >
        <CardTitle id={`tile-${id}-title`}>{title}</CardTitle>
      </CardHeader>
      <CardBody>{description}</CardBody>
    </Card>
  );
}

function Options({ onChoose }: { onChoose(choice: Choice): void }) {
  const options = useGitOpsOptions();
  const { isEnabled } = useSession();
  return (
    <>
      <Title headingLevel="h2" size="md" className="pf-v6-u-mb-sm">
        Add via GitOps
      </Title>
      {options.error ? (
        <Alert isInline variant="danger" title={errorMessage(options.error)} className="pf-v6-u-mb-lg" />
      ) : (
        <Gallery hasGutter minWidths={{ default: '14rem' }} className="pf-v6-u-mb-lg" aria-label="Add via GitOps" role="list">
          {options.data
            ? options.data.map((option) => (
                <div role="listitem" key={option.id}>
                  <Tile
                    id={`gitops-${option.id}`}
                    title={option.label}
                    description={`Helm chart ${option.chart}`}
                    onClick={() => onChoose({ kind: 'gitops', option })}
                  />
                </div>
              ))
            : [1, 2, 3].map((i) => <Skeleton key={i} height="5rem" screenreaderText="Loading options" />)}
        </Gallery>
      )}
      <Title headingLevel="h2" size="md" className="pf-v6-u-mb-sm">
        Add Directly
      </Title>
      <Gallery hasGutter minWidths={{ default: '14rem' }} aria-label="Add Directly" role="list">
        {DIRECT_OPTIONS.filter((o) => o.type !== 'logging_backend' || isEnabled('logs')).map((o) => (
          <div role="listitem" key={o.type}>
            <Tile id={o.type} title={o.label} description={o.description} onClick={() => onChoose({ kind: 'direct', ...o })} />
          </div>
        ))}
      </Gallery>
    </>
  );
}

/** Add Integration (decisions 8.8 and 8.9): GitOps options (a generated Flux
 * manifest or Helm commands) or a direct integration created here. */
export function AddIntegrationModal({ onClose }: { onClose(): void }) {
  const [choice, setChoice] = useState<Choice>();
  const { create } = useIntegrationsData();
  const toast = useToast();
  const label = choice?.kind === 'gitops' ? choice.option.label : choice?.label;

  return (
    <Modal variant="large" isOpen onClose={onClose} aria-labelledby="add-integration-title">
      <ModalHeader title={addIntegrationTitle(label)} labelId="add-integration-title" />
      <ModalBody>
        {!choice ? (
          <Options onChoose={setChoice} />
        ) : choice.kind === 'gitops' ? (
          <GitOpsForm option={choice.option} />
        ) : (
          <DirectForm
            type={choice.type}
            isBusy={create.isPending}
            onCancel={onClose}
            onSubmit={(body) =>
              create.mutate(
                { type: choice.type, body },
                {
                  onSuccess: () => (toast.success(`${String(body.name)} created successfully`), onClose()),
                  onError: (e) => toast.error(errorMessage(e)),
                },
              )
            }
          />
        )}
      </ModalBody>
      {choice && (
        <ModalFooter>
          <Button variant="secondary" onClick={() => setChoice(undefined)}>
            Back
          </Button>
          <Button variant="link" onClick={onClose}>
            Close
          </Button>
        </ModalFooter>
      )}
    </Modal>
  );
}
