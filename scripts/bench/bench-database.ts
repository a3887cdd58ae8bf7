import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/**
 * A fresh database on the benchmark server (`DATABASE_URL`, a production-configured cluster
 * by default), so figures never depend on an earlier run; dropped again by `drop()`.
 */
export interface BenchDatabase {
  /** The database's name (printed, so a kept one can be searched again). */
  name: string;
  url: string;
  /** A connection to the server's maintenance database (settings, the drop). */
  admin: postgres.Sql;
  /** `name=setting ...` for the named server settings, to print beside the figures. */
  settings(names: readonly string[]): Promise<string>;
  /** Drops the database (unless `keep`, or it was an existing one) and closes the admin connection. */
  drop(keep?: boolean): Promise<void>;
}

/** `existing`: a database an earlier run kept, used as it is and never dropped. */
export async function createBenchDatabase(adminUrl: string | undefined, prefix: string, hint: string, existing?: string): Promise<BenchDatabase> {
  if (!adminUrl) throw new Error(`DATABASE_URL is required (${hint})`);
  if (existing !== undefined && !new RegExp(`^${prefix}_[0-9a-f]{8}$`).test(existing)) throw new Error(`not a database this benchmark made: ${existing}`);
  const name = existing ?? `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => undefined });
  if (existing === undefined) await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    admin,
    async settings(names) {
      const [row] = await admin<
        { s: string }[]
      >`SELECT string_agg(name || '=' || setting, ' ' ORDER BY name) AS s FROM pg_settings WHERE name IN ${admin(names)}`;
      return row?.s ?? '';
    },
    async drop(keep = false) {
      if (!keep && existing === undefined) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end({ timeout: 5 });
    },
  };
}
