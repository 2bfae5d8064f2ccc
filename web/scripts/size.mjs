// Prints the gzipped JavaScript the /login route loads: the entry chunk, the
// sign-in page chunk and everything they import statically (Vite manifest).
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

// 255 kB since issue 16: the one PatternFly chunk (vite.config.ts) holds every component any
// page uses, and the connection forms' select and toggle components took /login to 253 kB.
// Splitting that chunk by route is the real mend (issue 25, performance).
const LIMIT = 255 * 1000;
const dist = new URL('../dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));

const entry = Object.keys(manifest).find((key) => manifest[key].isEntry);
const login = 'src/pages/login/LoginPage.tsx';
if (!entry || !manifest[login]) {
  console.error('manifest lacks the entry or the login page; run npm run build first');
  process.exit(1);
}

const seen = new Set();
/** @param {string} key */
const visit = (key) => {
  if (seen.has(key)) return;
  seen.add(key);
  for (const dep of manifest[key].imports ?? []) visit(dep);
};
visit(entry);
visit(login);

let total = 0;
for (const key of seen) {
  const file = manifest[key].file;
  const bytes = gzipSync(readFileSync(new URL(file, dist)), { level: 9 }).length;
  total += bytes;
  console.log(`${String(bytes).padStart(8)}  ${file}`);
}
console.log(`${String(total).padStart(8)}  total gzipped JS for /login (limit ${LIMIT})`);
if (total > LIMIT) process.exit(1);
