import { Alert, ExpandableSection } from '@patternfly/react-core';

/** The message of an error (or 'Something went wrong'), with stack and cause. */
export function ErrorPanel({ error, title }: { error: unknown; title?: string }) {
  const err = error instanceof Error ? error : undefined;
  const message = err?.message || 'Something went wrong';
  const cause = err?.cause instanceof Error ? err.cause.message : err?.cause ? String(err.cause) : '';
  return (
    <Alert variant="danger" isInline title={title ?? message}>
      {title && <p>{message}</p>}
      {(err?.stack || cause) && (
        <ExpandableSection toggleText="Details">
          {cause && <p>Cause: {cause}</p>}
          {err?.stack && <pre className="qd-stack">{err.stack}</pre>}
        </ExpandableSection>
      )}
    </Alert>
  );
}
