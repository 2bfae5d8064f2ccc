import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';

// The API runs on its own port in development; the built app is served by
// quarterdeck-api itself, so production needs no proxy.
const api = process.env.QUARTERDECK_API ?? 'http://127.0.0.1:8080';
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

// The PatternFly components the entry (toasts, error boundary, spinner) and the
// sign-in pages use: all of PatternFly that /login loads. A component a sign-in
// page starts to use belongs here, or /login loads the shell's PatternFly chunk
// too (`npm run size` lists what /login loads).
const SIGN_IN_COMPONENTS = [
  'Alert',
  'Bullseye',
  'Button',
  'Divider',
  'EmptyState',
  'ExpandableSection',
  'Form',
  'HelperText',
  'LoginPage',
  'Spinner',
  'Stack',
  'TextInput',
].join('|');
const PATTERNFLY_SIGN_IN = new RegExp(
  `node_modules[\\\\/]@patternfly[\\\\/]react-core[\\\\/]dist[\\\\/]esm[\\\\/](components|layouts)[\\\\/](${SIGN_IN_COMPONENTS})[\\\\/]`,
);

// PatternFly's Alert imports Tooltip, and with it Popper (about 9 kB gzipped), only
// to show a title cut short by `truncateTitle`. Every sign-in page shows alerts, so
// the build gives Alert a Tooltip that loads when first shown.
const lazyAlertTooltip: Plugin = {
  name: 'lazy-alert-tooltip',
  apply: 'build',
  enforce: 'pre',
  resolveId(source, importer) {
    if (
      source === '../Tooltip' &&
      importer &&
      /@patternfly[\\/]react-core[\\/]dist[\\/]esm[\\/]components[\\/]Alert[\\/]Alert\.js$/.test(importer)
    ) {
      return fileURLToPath(new URL('./src/components/AlertTooltip.tsx', import.meta.url));
    }
  },
};

export default defineConfig({
  plugins: [react(), lazyAlertTooltip],
  define: { __APP_VERSION__: JSON.stringify(version) },
  build: {
    manifest: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // PatternFly in two chunks rather than dozens of small shared ones: the
          // browser fetches six at a time over HTTP/1.1, so a page's first load
          // waited in that queue (Health: about 0.5 s). The first holds what the
          // entry and the sign-in pages use, with everything it imports; the
          // second the rest, which only the shell's pages load.
          groups: [
            { name: 'patternfly-sign-in', test: PATTERNFLY_SIGN_IN, priority: 2 },
            { name: 'patternfly', test: /node_modules[\\/]@patternfly[\\/]react-(core|icons|table|styles)[\\/]/, priority: 1 },
          ],
        },
      },
    },
  },
  server: {
    // /mcp too: the MCP setup snippets name this origin's /mcp.
    proxy: { '/api': { target: api, changeOrigin: true }, '/mcp': { target: api, changeOrigin: true } },
    // The spec editors import the chart's CRDs (../charts), the one copy of their schemas.
    fs: { allow: ['..'] },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.spec.{ts,tsx}'],
    // jsdom renders of whole screens take seconds on a loaded 2-core machine; 5 s failed there.
    testTimeout: 30_000,
    // PatternFly's style modules import their CSS, which only Vite's own pipeline reads.
    server: { deps: { inline: [/@patternfly[\\/]react-styles/] } },
  },
});
