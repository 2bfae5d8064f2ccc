import { useCallback } from 'react';
import { useToast } from './toast';

/** Copies text and says so in a toast (the spec's clipboard messages).
 * Resolves to whether the text was copied. */
export function useCopyToClipboard(): (text: string, copied?: string) => Promise<boolean> {
  const toast = useToast();
  return useCallback(
    async (text: string, copied = 'Copied to clipboard') => {
      if (!navigator.clipboard) {
        toast.error('Clipboard not available');
        return false;
      }
      try {
        await navigator.clipboard.writeText(text);
        toast.success(copied);
        return true;
      } catch {
        toast.error('Failed to copy to clipboard');
        return false;
      }
    },
    [toast],
  );
}
