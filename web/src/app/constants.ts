/** Where the product documentation lives (help menu and help links). */
export const DOCS_URL = 'https://quarterdeck.dev/docs';

export function docsUrl(path: string): string {
  return `${DOCS_URL}${path}`;
}
