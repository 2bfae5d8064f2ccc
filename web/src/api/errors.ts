import { REQUEST_MESSAGES, bodyMessage } from '../lib/requestErrors';

export interface FieldProblem {
  field: string;
  message: string;
}

/** A request that got an error answer, or none at all (status 0). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;

  constructor(status: number, body: unknown, message?: string) {
    super(message ?? bodyMessage(body) ?? REQUEST_MESSAGES.fallback);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }

  /** Per-field problems: the API's `field`, or the data API's `details` list. */
  get fieldProblems(): FieldProblem[] {
    const body = this.body as { field?: unknown; message?: unknown; details?: unknown } | null;
    if (!body || typeof body !== 'object') return [];
    if (typeof body.field === 'string' && typeof body.message === 'string') {
      return [{ field: body.field, message: body.message }];
    }
    if (Array.isArray(body.details)) {
      return body.details.filter((p): p is FieldProblem => typeof p?.field === 'string' && typeof p?.message === 'string');
    }
    return [];
  }
}

/** The message to show for any thrown value. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message) return error.message;
  return REQUEST_MESSAGES.fallback;
}
