// Fails when src/api/schema.d.ts is not what openapi-typescript generates
// from ../console-api/openapi.json (run `npm run gen:api` to update it).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = fileURLToPath(new URL('..', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'schema-'));
const fresh = join(dir, 'schema.d.ts');
try {
  execFileSync(join(web, 'node_modules/.bin/openapi-typescript'), ['../console-api/openapi.json', '-o', fresh], {
    cwd: web,
    stdio: 'ignore',
  });
  const committed = readFileSync(join(web, 'src/api/schema.d.ts'), 'utf8');
  if (readFileSync(fresh, 'utf8') !== committed) {
    console.error('src/api/schema.d.ts is out of date with console-api/openapi.json: run npm run gen:api');
    process.exitCode = 1;
  } else {
    console.log('src/api/schema.d.ts matches console-api/openapi.json');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
