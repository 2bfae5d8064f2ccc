import { readFileSync } from 'node:fs';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The API runs on its own port in development; the built app is served by
// quarterdeck-api itself, so production needs no proxy.
const api = process.env.QUARTERDECK_API ?? 'http://127.0.0.1:8080';
const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')) as { version: string };

export default defineConfig({
  plugins: [react()],
  define: { __APP_VERSION__: JSON.stringify(version) },
  build: {
    manifest: true,
    sourcemap: true,
    chunkSizeWarningLimit: 1200,
  },
  server: {
    proxy: { '/api': { target: api, changeOrigin: true } },
  },
  test: {
    environment: 'node',
    include: ['src/**/*.spec.{ts,tsx}'],
  },
});
