import {
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
import { docsUrl } from './constants';

export const KUBECONFIG_FILE = 'quarterdeck-kubeconfig.yaml';
export const KUBECONFIG_COMMAND = `KUBECONFIG=${KUBECONFIG_FILE} kubectl get canaries --all-namespaces`;

/** The kubeconfig dialog (spec part 2 section 2.11): download, try it, read more. */
export function KubeconfigModal({ onClose }: { onClose(): void }) {
  return (
    <Modal variant="medium" isOpen onClose={onClose} aria-labelledby="kubeconfig-title">
      <ModalHeader title="Download kubeconfig" labelId="kubeconfig-title" />
      <ModalBody>
        <List component={ListComponent.ol} type={OrderType.number} aria-label="Steps" className="qd-steps">
          <ListItem>
            <Content component="p">Download a kubeconfig that reaches the cluster through Quarterdeck with your rights.</Content>
            <Button component="a" href="/api/kubeconfig" download={KUBECONFIG_FILE} variant="primary" icon={<DownloadIcon />}>
              Download kubeconfig
            </Button>
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
