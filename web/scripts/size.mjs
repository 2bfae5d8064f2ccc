// Prints the gzipped JavaScript a route loads: the entry chunk, the route's
// chunks and everything they import statically (Vite manifest), and how many
// files that is. /login loads the entry and the sign-in page; /health and
// /catalog the entry, the shell and their page.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

// PatternFly is two chunks (vite.config.ts): what the entry and the sign-in pages
// use, which every route loads, and the rest, which only the shell's pages load.
const ROUTES = [
  { path: '/login', chunks: ['src/pages/login/LoginPage.tsx'], limit: 150 * 1000 },
  { path: '/health', chunks: ['src/app/AppLayout.tsx', 'src/pages/health/HealthPage.tsx'], limit: 400 * 1000 },
  { path: '/catalog', chunks: ['src/app/AppLayout.tsx', 'src/pages/catalog/list/CatalogPage.tsx'], limit: 350 * 1000 },
];
const dist = new URL('../dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));
const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
if (!entry) {
  console.error('manifest lacks the entry; run npm run build first');
  process.exit(1);
}

/** @param {string} key */
const gzipped = (key) => gzipSync(readFileSync(new URL(manifest[key].file, dist)), { level: 9 }).length;

let over = false;
const totals = [];
for (const route of ROUTES) {
  const missing = route.chunks.filter((key) => !manifest[key]);
  if (missing.length > 0) {
    console.error(`manifest lacks ${missing.join(', ')}; run npm run build first`);
    process.exit(1);
  }
  const seen = new Set();
  /** @param {string} key */
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const dep of manifest[key].imports ?? []) visit(dep);
  };
  for (const key of [entry, ...route.chunks]) visit(key);

  let total = 0;
  console.log(route.path);
  for (const key of seen) {
    const bytes = gzipped(key);
    total += bytes;
    console.log(`${String(bytes).padStart(8)}  ${manifest[key].file}`);
  }
  totals.push(`${String(total).padStart(8)}  total gzipped JS for ${route.path} in ${seen.size} files (limit ${route.limit})`);
  if (total > route.limit) over = true;
}
console.log(totals.join('\n'));
if (over) process.exit(1);
