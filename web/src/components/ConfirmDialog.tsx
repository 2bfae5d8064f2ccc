import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import backdropStyles from '@patternfly/react-styles/css/components/Backdrop/backdrop';
import { useEffect, useId, useState } from 'react';

interface Props {
  isOpen: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  isBusy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** An open PatternFly modal marks every other child of the page aria-hidden each
 * time it renders, and a confirmation asked from inside a modal is such a child:
 * when the modal behind it rendered again (a refetch), the confirmation left the
 * accessibility tree though it stayed on screen. While open, it takes that mark
 * off its own backdrop. */
function useStayInReach(id: string, isOpen: boolean) {
  useEffect(() => {
    if (!isOpen) return;
    const backdrop = document.getElementById(id)?.closest(`.${backdropStyles.backdrop}`);
    if (!backdrop) return;
    const reveal = () => backdrop.removeAttribute('aria-hidden');
    reveal();
    const observer = new MutationObserver(reveal);
    observer.observe(backdrop, { attributes: true, attributeFilter: ['aria-hidden'] });
    return () => observer.disconnect();
  }, [id, isOpen]);
}

/** A delete-style confirmation: Cancel, and a danger button to confirm. */
export function ConfirmDialog({ isOpen, title, message, confirmLabel = 'Delete', isBusy, onConfirm, onCancel }: Props) {
  const id = useId();
  useStayInReach(id, isOpen);
  return (
    <Modal id={id} variant="small" isOpen={isOpen} onClose={onCancel} aria-labelledby="confirm-title">
      <ModalHeader title={title} labelId="confirm-title" titleIconVariant="warning" />
      <ModalBody>{message}</ModalBody>
      <ModalFooter>
        <Button variant="danger" onClick={onConfirm} isLoading={isBusy} isDisabled={isBusy}>
          {confirmLabel}
        </Button>
        <Button variant="link" onClick={onCancel}>
          Cancel
        </Button>
      </ModalFooter>
    </Modal>
  );
}

interface DeleteProps {
  title: string;
  message: string;
  isDisabled?: boolean;
  /** Runs the deletion; the dialog closes when it settles. */
  onConfirm(): Promise<unknown>;
}

/** A Delete button that asks first. It keeps its own open state so that a
 * modal it sits in does not re-render (and hide the dialog from assistive
 * technology) when the confirmation opens. */
export function DeleteButton({ title, message, isDisabled, onConfirm }: DeleteProps) {
  const [isOpen, setOpen] = useState(false);
  const [isBusy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };
  return (
    <>
      <Button variant="danger" isDisabled={isDisabled} onClick={() => setOpen(true)}>
        Delete
      </Button>
      <ConfirmDialog
        isOpen={isOpen}
        title={title}
        message={message}
        isBusy={isBusy}
        onCancel={() => setOpen(false)}
        onConfirm={() => void confirm()}
      />
    </>
  );
}
