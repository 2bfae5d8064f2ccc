import {
  Alert,
  Button,
  ClipboardCopy,
  Content,
  List,
  ListComponent,
  ListItem,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  OrderType,
} from '@patternfly/react-core';
import DownloadIcon from '@patternfly/react-icons/dist/esm/icons/download-icon';
import ExternalLinkAltIcon from '@patternfly/react-icons/dist/esm/icons/external-link-alt-icon';
import { useMutation } from '@tanstack/react-query';
import { api, unwrap } from '../api/client';
import { errorMessage } from '../api/errors';
import { docsUrl } from './constants';

export const KUBECONFIG_FILE = 'quarterdeck-kubeconfig.yaml';
export const KUBECONFIG_COMMAND = `KUBECONFIG=${KUBECONFIG_FILE} kubectl get canaries --all-namespaces`;

/** Saves a blob under a file name, as a download link would. */
function save(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // The click has started the download; the URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

/** The kubeconfig dialog (decision 8.3): download, try it, read more.
 * Issuing a kubeconfig creates an access token, so it is a POST, never a link. */
export function KubeconfigModal({ onClose }: { onClose(): void }) {
  const download = useMutation({
    mutationFn: () => unwrap(api.POST('/api/kubeconfig', { parseAs: 'blob' })),
    onSuccess: (blob) => save(blob, KUBECONFIG_FILE),
  });
  return (
    <Modal variant="medium" isOpen onClose={onClose} aria-labelledby="kubeconfig-title">
      <ModalHeader title="Download kubeconfig" labelId="kubeconfig-title" />
      <ModalBody>
        <List component={ListComponent.ol} type={OrderType.number} aria-label="Steps" className="qd-steps">
          <ListItem>
            <Content component="p">Download a kubeconfig that reaches the cluster through Quarterdeck with your rights.</Content>
            <Button
              variant="primary"
              icon={<DownloadIcon />}
              isLoading={download.isPending}
              isDisabled={download.isPending}
              onClick={() => download.mutate()}
            >
              Download kubeconfig
            </Button>
            {download.isError && <Alert variant="danger" isInline isPlain title={errorMessage(download.error)} className="pf-v6-u-mt-sm" />}
          </ListItem>
          <ListItem>
            <Content component="p">Use it with kubectl, for example to list the canaries:</Content>
            <ClipboardCopy
              isReadOnly
              hoverTip="Copy command"
              clickTip="Copied"
              textAriaLabel="kubectl command"
              toggleAriaLabel="Show command"
            >
              {KUBECONFIG_COMMAND}
            </ClipboardCopy>
          </ListItem>
          <ListItem>
            <Content component="p">Learn what the kubeconfig can do:</Content>
            <Button
              component="a"
              href={docsUrl('/kubeconfig')}
              target="_blank"
              rel="noopener noreferrer"
              variant="link"
              isInline
              icon={<ExternalLinkAltIcon />}
              iconPosition="end"
            >
              Kubeconfig documentation
            </Button>
          </ListItem>
        </List>
      </ModalBody>
      <ModalFooter>
        <Button variant="link" onClick={onClose}>
          Close
        </Button>
      </ModalFooter>
    </Modal>
  );
}
