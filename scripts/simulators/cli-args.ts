import { pathToFileURL } from 'node:url';

/** `--key value` and bare `--flag` arguments for the simulator command lines. */
export function parseCliArgs(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}`);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      out.set(arg.slice(2, eq), arg.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out.set(arg.slice(2), next);
      i++;
    } else {
      out.set(arg.slice(2), 'true');
    }
  }
  return out;
}

export function numberArg(args: Map<string, string>, key: string): number | undefined {
  const raw = args.get(key);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`--${key} wants a number, got ${raw}`);
  return n;
}

/** True when the module is the process entry point (`npx tsx scripts/simulators/x.ts`). */
export const isMain = (moduleUrl: string): boolean => process.argv[1] !== undefined && moduleUrl === pathToFileURL(process.argv[1]).href;

/** Close on SIGINT/SIGTERM so a supervising test or script can stop the process cleanly. */
export function closeOnSignals(close: () => Promise<void>): void {
  const stop = (): void => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
