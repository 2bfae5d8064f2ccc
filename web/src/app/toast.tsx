import { Alert, AlertActionCloseButton, AlertActionLink, AlertGroup, Spinner } from '@patternfly/react-core';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

/** Toasts: bottom-right, 5 seconds; loading toasts stay (no close button)
 * until dismissed. */
export const TOAST_MS = 5000;

type Kind = 'success' | 'error' | 'loading';

/** A link in a toast. Toasts sit outside the router, so the caller says how to follow it. */
export interface ToastLink {
  text: string;
  href: string;
  follow(): void;
}

interface Toast {
  id: number;
  kind: Kind;
  text: string;
  link?: ToastLink;
}

export interface Toaster {
  success(text: string, link?: ToastLink): number;
  error(text: string): number;
  loading(text: string): number;
  dismiss(id: number): void;
}

const ToastContext = createContext<Toaster | null>(null);

let nextId = 1;

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const dismiss = useCallback((id: number) => setToasts((all) => all.filter((t) => t.id !== id)), []);
  const toaster = useMemo<Toaster>(() => {
    const add = (kind: Kind) => (text: string, link?: ToastLink) => {
      const id = nextId++;
      setToasts((all) => [...all, { id, kind, text, link }]);
      return id;
    };
    return { success: add('success'), error: add('error'), loading: add('loading'), dismiss };
  }, [dismiss]);
  return (
    <ToastContext.Provider value={toaster}>
      {children}
      <AlertGroup isToast isLiveRegion className="qd-toasts">
        {toasts.map((t) =>
          t.kind === 'loading' ? (
            <Alert key={t.id} variant="info" title={t.text} customIcon={<Spinner size="md" aria-label="Loading" />} />
          ) : (
            <Alert
              key={t.id}
              variant={t.kind === 'success' ? 'success' : 'danger'}
              title={t.text}
              timeout={TOAST_MS}
              onTimeout={() => dismiss(t.id)}
              actionClose={<AlertActionCloseButton title={t.text} onClose={() => dismiss(t.id)} />}
              actionLinks={
                t.link && (
                  <AlertActionLink
                    component="a"
                    href={t.link.href}
                    onClick={(e) => {
                      e.preventDefault();
                      t.link?.follow();
                    }}
                  >
                    {t.link.text}
                  </AlertActionLink>
                )
              }
            />
          ),
        )}
      </AlertGroup>
    </ToastContext.Provider>
  );
}

export function useToast(): Toaster {
  const toaster = useContext(ToastContext);
  if (!toaster) throw new Error('useToast must be used inside ToastProvider');
  return toaster;
}
