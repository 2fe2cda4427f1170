/**
 * A schema of its own on the test PostgreSQL server for one describe block: created before its
 * tests, dropped with everything in it afterwards, so concurrent runs against one server never
 * collide. Call inside a `describe.skipIf(testDatabaseUrl === undefined)` block.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, onTestFinished } from 'vitest';

export function useTemporarySchema(connectionString: string): string {
  const schema = `tailcam_test_${randomBytes(6).toString('hex')}`;
  let admin: pg.Client | undefined;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
  });
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });
  return schema;
}

/**
 * The same for one test: a schema created now and dropped when the test finishes, with a
 * connection string whose `search_path` is that schema (for a server or command started with it)
 * and the admin client (for looking inside).
 */
export async function temporarySchemaForTest(
  connectionString: string,
  prefix = 'tailcam_test',
): Promise<{ schema: string; databaseUrl: string; admin: pg.Client }> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  onTestFinished(async () => {
    await admin.query(`DROP SCHEMA ${schema} CASCADE`);
    await admin.end();
  });
  const url = new URL(connectionString);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { schema, databaseUrl: url.toString(), admin };
}
