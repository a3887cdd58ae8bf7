/**
 * `fallback` when `operation` fails because the file or folder is not there (ENOENT); any
 * other error propagates. Segments and legacy journals may be removed by another process
 * on the same folder (a compaction, a replay) between a lookup and its use.
 */
export async function ifMissing<T, F>(operation: Promise<T>, fallback: F): Promise<T | F> {
  try {
    return await operation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw error;
  }
}
