import {
  Alert,
  Button,
  Form,
  FormGroup,
  InputGroup,
  InputGroupItem,
  Modal,
  ModalBody,
  ModalFooter,
  ModalHeader,
  TextInput,
} from '@patternfly/react-core';
import CopyIcon from '@patternfly/react-icons/dist/esm/icons/copy-icon';
import EyeIcon from '@patternfly/react-icons/dist/esm/icons/eye-icon';
import EyeSlashIcon from '@patternfly/react-icons/dist/esm/icons/eye-slash-icon';
import { useState } from 'react';
import { useCopyToClipboard } from '../../app/clipboard';
import type { CreatedToken } from './CreateTokenModal';
import { McpSetupPanel } from './McpSetupPanel';

/** 'Token Created Successfully': the token, shown this once. */
export function TokenCreatedModal({ token, onClose }: { token: CreatedToken; onClose(): void }) {
  const [revealed, setRevealed] = useState(false);
  const copy = useCopyToClipboard();

  return (
    <Modal variant="large" isOpen onClose={onClose} aria-labelledby="token-created-title">
      <ModalHeader title="Token Created Successfully" labelId="token-created-title" titleIconVariant="success" />
      <ModalBody>
        <Alert
          isInline
          variant="warning"
          title="Copy this token now. It is shown only once: you will not be able to see it again."
          className="pf-v6-u-mb-md"
        />
        <Form>
          <FormGroup label="Name" fieldId="created-token-name">
            <TextInput id="created-token-name" value={token.name} readOnlyVariant="default" readOnly />
          </FormGroup>
          <FormGroup label="Token" fieldId="created-token">
            <InputGroup>
              <InputGroupItem isFill>
                <TextInput
                  id="created-token"
                  type={revealed ? 'text' : 'password'}
                  value={token.token}
                  readOnlyVariant="default"
                  readOnly
                />
              </InputGroupItem>
              <InputGroupItem>
                <Button
                  variant="control"
                  aria-label={revealed ? 'Hide token' : 'Show token'}
                  icon={revealed ? <EyeSlashIcon /> : <EyeIcon />}
                  onClick={() => setRevealed(!revealed)}
                />
              </InputGroupItem>
              <InputGroupItem>
                <Button
                  variant="control"
                  aria-label="Copy token"
                  icon={<CopyIcon />}
                  onClick={() => void copy(token.token, 'Token copied to clipboard')}
                />
              </InputGroupItem>
            </InputGroup>
          </FormGroup>
        </Form>
        <McpSetupPanel token={token.token} />
      </ModalBody>
      <ModalFooter>
        <Button onClick={onClose}>Close</Button>
      </ModalFooter>
    </Modal>
  );
}
