import { readFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The API runs on its own port in development; the built app is served by
// quarterdeck-api itself, so production needs no proxy.
const api = process.env.QUARTERDECK_API ?? 'http://127.0.0.1:8080';
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

const PAGE_COMPONENTS = [
  'CalendarMonth',
  'ClipboardCopy',
  'DataList',
  'DatePicker',
  'DescriptionList',
  'Label',
  'Pagination',
  'SearchInput',
  'Tabs',
  'TimePicker',
  'ToggleGroup',
  'Toolbar',
  'Truncate',
].join('|');
const PATTERNFLY_PAGES = new RegExp(
  `node_modules[\\\\/]@patternfly[\\\\/](react-table[\\\\/]|react-core[\\\\/]dist[\\\\/]esm[\\\\/]components[\\\\/](${PAGE_COMPONENTS})[\\\\/]|react-styles[\\\\/]css[\\\\/]components[\\\\/](${PAGE_COMPONENTS}|Table)[\\\\/])`,
);

export default defineConfig({
  plugins: [react()],
  define: { __APP_VERSION__: JSON.stringify(version) },
  build: {
    manifest: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
    rolldownOptions: {
      output: {
        codeSplitting: {
          // One PatternFly chunk instead of dozens of small shared ones: the
          // browser fetches six at a time over HTTP/1.1, so a page's first
          // load waited in that queue (Health: about 0.5 s).
          // The components only the pages use (tables, tabs, toolbars, pickers) go in
          // a second chunk, so /login (entry, PatternFly, sign-in page) stays small.
          // None of the first chunk's modules may import the second's, or /login
          // would load both: `npm run size` lists what /login loads.
          groups: [
            { name: 'patternfly-pages', test: PATTERNFLY_PAGES, priority: 2, includeDependenciesRecursively: false },
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
  },
});
