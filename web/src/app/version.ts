/** The web console's package version, set at build time. */
export const FRONTEND_VERSION: string = __APP_VERSION__;
