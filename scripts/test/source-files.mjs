// Every file below a folder, depth first: the walker the repository checks under scripts/test
// share (no-api-paths.mjs, no-sql-in-routes.mjs), which then pick the files they read.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}
