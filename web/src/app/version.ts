/** The web console's package version, set at build time. */
export const FRONTEND_VERSION: string = __APP_VERSION__;

/** The user menu's version line: Quarterdeck's own versions of both halves,
 * 'NA' for a back end that did not say. */
export function versionLine(backend: string | undefined): string {
  return `frontend ${FRONTEND_VERSION} backend ${backend || 'NA'}`;
}
