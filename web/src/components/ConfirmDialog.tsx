import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import backdropStyles from '@patternfly/react-styles/css/components/Backdrop/backdrop';
import { useCallback, useState } from 'react';

interface Props {
  isOpen: boolean;
  title: string;
  message: string;
  confirmLabel?: string;
  isBusy?: boolean;
  onConfirm(): void;
  onCancel(): void;
}

/** Where a confirmation opens: inside the backdrop of the modal it is asked from, if any.
 * An open PatternFly modal hides every other child of the page from assistive technology
 * each time it renders, so a confirmation beside it vanished from the accessibility tree
 * when the modal behind it re-rendered (a refetch); inside that modal's backdrop, it is
 * the one child the modal leaves alone. */
function confirmTarget(anchor: HTMLElement): HTMLElement {
  return anchor.closest<HTMLElement>(`.${backdropStyles.backdrop}`) ?? document.body;
}

/** A delete-style confirmation: Cancel, and a danger button to confirm. */
export function ConfirmDialog({ isOpen, title, message, confirmLabel = 'Delete', isBusy, onConfirm, onCancel }: Props) {
  const [target, setTarget] = useState<HTMLElement | null>(null);
  const anchor = useCallback((node: HTMLSpanElement | null) => setTarget(node && confirmTarget(node)), []);
  return (
    <>
      <span ref={anchor} hidden />
      {target && (
        <Modal variant="small" isOpen={isOpen} onClose={onCancel} aria-labelledby="confirm-title" appendTo={target}>
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
      )}
    </>
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
