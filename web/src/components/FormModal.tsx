import { Button, Form, Modal, ModalBody, ModalFooter, ModalHeader, type ModalProps } from '@patternfly/react-core';
import type { ReactNode } from 'react';

export interface FormModalProps {
  /** The form's id: the submit button in `actions` names it (`form={id}`). */
  id: string;
  title: string;
  variant?: ModalProps['variant'];
  onClose(): void;
  /** Enter in a field or the submit button. */
  onSubmit(): void;
  /** Shown above the form, e.g. why it is read-only. */
  notice?: ReactNode;
  /** The footer's buttons before Cancel. */
  actions: ReactNode;
  cancelLabel?: string;
  /** The form's fields. */
  children: ReactNode;
}

/** A modal holding one form, with its actions and Cancel in the footer. */
export function FormModal({
  id,
  title,
  variant = 'small',
  onClose,
  onSubmit,
  notice,
  actions,
  cancelLabel = 'Cancel',
  children,
}: FormModalProps) {
  const titleId = `${id}-title`;
  return (
    <Modal variant={variant} isOpen onClose={onClose} aria-labelledby={titleId}>
      <ModalHeader title={title} labelId={titleId} />
      <ModalBody>
        {notice}
        <Form
          id={id}
          onSubmit={(e) => {
            e.preventDefault();
            onSubmit();
          }}
        >
          {children}
        </Form>
      </ModalBody>
      <ModalFooter>
        {actions}
        <Button variant="link" onClick={onClose}>
          {cancelLabel}
        </Button>
      </ModalFooter>
    </Modal>
  );
}
